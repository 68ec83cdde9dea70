import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `test-notification`: asks Apple to send a test notification to the configured
/// notification URL, waits for Apple's delivery report, and answers each send attempt with a
/// hint for what to fix. The check to run after every change of the notification URL.
public final class TestNotificationFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case bundleId, environment, timeoutSeconds, pollIntervalMilliseconds, decode
        }
        /// The app whose notification URL is tested (the only one without it).
        var bundleId: String?
        var environment: String?
        var timeoutSeconds: Int?
        var pollIntervalMilliseconds: Int?
        var decode: Bool?
    }

    /// Whether, and how, Apple delivered the test notification.
    public struct Answer: Encodable {
        struct SendAttempt: Encodable {
            /// Milliseconds since 1970.
            var attemptDate: Int64?
            /// Apple's name, as Apple spelt it (OTHER when Apple gave none).
            var sendAttemptResult: String
            /// What to check for this result.
            var hint: String?
        }

        var bundleId: String
        var environment: String
        var testNotificationToken: String
        var delivered: Bool
        /// delivered, failed or pending.
        var outcome: String
        var polls: Int
        var sendAttempts: [SendAttempt]
        /// The verified test notification, with decode.
        var payload: JSONValue?
    }

    public typealias Response = CallOutcome<Answer>

    public static let descriptor = FunctionDescriptor(
        name: "test-notification",
        route: "/appstore/test-notification",
        method: "POST",
        visibility: .internal,
        summary: "Request an App Store test notification and report whether, and how, Apple delivered it.",
        request: """
            {"bundleId": "...", "environment": "Production" | "Sandbox" (default Production), "timeoutSeconds": 60 (1-600),
             "pollIntervalMilliseconds": 2000 (10-60000), "decode": false}
              \(AppStoreAPISettings.bundleIdHelp)
              Requests a test notification, then polls Get Test Notification Status until Apple
              reports an attempt, or the timeout passes. decode (needs APPSTORE_ROOT_CERTS) adds
              the verified test notification as "payload".
            """,
        response: """
            {"bundleId": "...", "environment": "...", "testNotificationToken": "...", "delivered": true | false,
             "outcome": "delivered" | "failed" | "pending", "polls": n,
             "sendAttempts": [{"attemptDate": ms, "sendAttemptResult": "SUCCESS" | "SSL_ISSUE" |
               "TIMED_OUT" | "UNSUCCESSFUL_HTTP_RESPONSE_CODE" | ..., "hint": "what to check"}]}
              delivered: exit 0; failed: HTTP 200, exit 69 (the notification URL is unreachable
              for Apple); pending at the timeout: HTTP 503, exit 75.
            Apple's errors as in app-store-api, e.g. ServerNotificationUrlNotFoundError (no URL
            configured for this environment): 404, exit 65.
            """,
        variables: AppStoreAPISettings.apiVariables
    )

    private let settings: AppStoreAPISettings
    private let context: FunctionContext

    public init(context: FunctionContext) throws {
        settings = try AppStoreAPISettings(environment: context.environment)
        self.context = context
    }

    public func handle(_ request: Request, call _: FunctionRequest) throws -> Reply<Response> {
        let app = try settings.catalog.app(requested: request.bundleId)
        let environment = try AppStoreAPISettings.environment(request.environment)
        let timeout = request.timeoutSeconds ?? 60
        guard (1...600).contains(timeout) else {
            throw FunctionError.badInput(message: "timeoutSeconds must be 1 to 600")
        }
        let interval = request.pollIntervalMilliseconds ?? 2000
        guard (10...60_000).contains(interval) else {
            throw FunctionError.badInput(message: "pollIntervalMilliseconds must be 10 to 60000")
        }
        let decode = request.decode ?? false
        if decode && settings.verification == nil {
            throw FunctionError.configuration("\(StorekeeperSettings.rootCertificates.name) is not set: \"decode\" needs the trusted roots")
        }

        let delivery = TestNotificationDelivery(client: try settings.makeClient(context: context, app: app),
                                                time: context.clock, environment: environment)
        let token: String
        let report: TestNotificationDelivery.Report
        do throws(AppStoreAPIError) {
            token = try delivery.requestTestNotification()
        } catch {
            context.log.warning("test_notification_not_requested", ["code": error.code])
            return .failed(error)
        }
        do throws(AppStoreAPIError) {
            report = try delivery.waitForReport(token: token, interval: .milliseconds(interval), timeout: .seconds(timeout))
        } catch {
            context.log.warning("test_notification_status_unavailable", ["code": error.code])
            return .failed(error)
        }
        let answer = self.answer(report, token: token, app: app, environment: environment, decode: decode)
        context.log.info("test_notification_delivered", ["bundleId": app.bundleId, "environment": environment.rawValue, "outcome": answer.outcome,
                                               "results": answer.sendAttempts.map(\.sendAttemptResult).joined(separator: ",")])
        switch answer.outcome {
        case "delivered": return Reply(.answered(answer))
        case "failed": return Reply(.answered(answer), exitCode: 69)
        default: return Reply(.answered(answer), status: ErrorDisposition.retryLater.httpStatus, exitCode: ErrorDisposition.retryLater.exitCode)
        }
    }

    private func answer(_ report: TestNotificationDelivery.Report, token: String, app: CatalogApp,
                        environment: AppStoreAPIEnvironment, decode: Bool) -> Answer {
        let attempts = report.status?.sendAttempts ?? []
        let delivered = attempts.contains { $0.sendAttemptResult == .success }
        var answer = Answer(
            bundleId: app.bundleId, environment: environment.rawValue, testNotificationToken: token, delivered: delivered,
            outcome: delivered ? "delivered" : (attempts.isEmpty ? "pending" : "failed"), polls: report.polls,
            sendAttempts: attempts.map { attempt in
                let result = attempt.rawSendAttemptResult ?? "OTHER"
                return Answer.SendAttempt(attemptDate: attempt.attemptDate, sendAttemptResult: result,
                                          hint: SendAttemptResult.hint(forRaw: result))
            })
        if decode, let signedPayload = report.status?.signedPayload, let verification = settings.verification {
            var decoder = SignedFieldDecoder(verifier: verification.makeVerifier(adapters: context.adapters, log: context.log), now: context.clock.now())
            if case .object(let decoded) = decoder.decode(.object(["signedPayload": .string(signedPayload)])) {
                answer.payload = decoded["payload"]
            }
        }
        return answer
    }
}
