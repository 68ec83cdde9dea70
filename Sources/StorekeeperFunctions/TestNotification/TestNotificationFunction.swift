import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `test-notification`: asks Apple to send a test notification to the configured
/// notification URL, waits for Apple's delivery report, and answers each send attempt with a
/// hint for what to fix. The check to run after every change of the notification URL.
public final class TestNotificationFunction: FunctionHandler {
    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case environment, timeoutSeconds, pollIntervalMilliseconds, decode
        }
        var environment: String?
        var timeoutSeconds: Int?
        var pollIntervalMilliseconds: Int?
        var decode: Bool?
    }

    public static let descriptor = FunctionDescriptor(
        name: "test-notification",
        route: "/appstore/test-notification",
        method: "POST",
        visibility: .internal,
        summary: "Request an App Store test notification and report whether, and how, Apple delivered it.",
        request: """
            {"environment": "Production" | "Sandbox" (default Production), "timeoutSeconds": 60 (1-600),
             "pollIntervalMilliseconds": 2000 (10-60000), "decode": false}
              Requests a test notification, then polls Get Test Notification Status until Apple
              reports an attempt, or the timeout passes. decode (needs APPSTORE_ROOT_CERTS) adds
              the verified test notification as "payload".
            """,
        response: """
            {"environment": "...", "testNotificationToken": "...", "delivered": true | false,
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
    private let timing: any AppStoreAPIRetryTiming

    public init(context: FunctionContext) throws {
        settings = try AppStoreAPISettings(environment: context.environment)
        self.context = context
        timing = SystemRetryTiming()
    }

    public func handle(_ request: FunctionRequest) throws -> FunctionResponse {
        let body = try request.decode(Request.self)
        let environment = try AppStoreAPISettings.environment(body.environment)
        let timeout = body.timeoutSeconds ?? 60
        guard (1...600).contains(timeout) else {
            throw FunctionError.badInput(message: "timeoutSeconds must be 1 to 600")
        }
        let interval = body.pollIntervalMilliseconds ?? 2000
        guard (10...60_000).contains(interval) else {
            throw FunctionError.badInput(message: "pollIntervalMilliseconds must be 10 to 60000")
        }
        let decode = body.decode ?? false
        if decode && settings.verification == nil {
            throw FunctionError.configuration("APPSTORE_ROOT_CERTS is not set: \"decode\" needs the trusted roots")
        }

        let client = try settings.makeClient(context: context, timing: timing)
        let token: String
        do throws(AppStoreAPIError) {
            guard let value = try client.requestTestNotification(environment: environment).value.testNotificationToken else {
                throw AppStoreAPIError(.invalidResponse, kind: .invalidResponse,
                                       reason: "Apple's answer has no testNotificationToken", httpStatus: 200)
            }
            token = value
        } catch {
            context.log.warning("test notification not requested", ["code": error.code])
            throw error
        }

        let started = timing.now()
        var polls = 0
        var status: CheckTestNotificationResponse?
        while true {
            polls += 1
            switch poll(client, token: token, environment: environment) {
            case .failure(let error):
                context.log.warning("test notification status unavailable", ["code": error.code])
                throw error
            case .success(let answer):
                status = answer
            }
            if let attempts = status?.sendAttempts, !attempts.isEmpty { break }
            if timing.now() - started + .milliseconds(interval) > .seconds(timeout) { break }
            timing.sleep(for: .milliseconds(interval))
        }

        let attempts = status?.sendAttempts ?? []
        let delivered = attempts.contains { $0.sendAttemptResult == .success }
        let outcome = delivered ? "delivered" : (attempts.isEmpty ? "pending" : "failed")
        var answer = JSONObjectBuilder()
        answer.add("environment", environment.rawValue)
        answer.add("testNotificationToken", token)
        answer.add("delivered", delivered)
        answer.add("outcome", outcome)
        answer.add("polls", rawJSON: Array(String(polls).utf8))
        var items: [JSONValue] = []
        for attempt in attempts {
            var item: [String: JSONValue] = [:]
            if let date = attempt.attemptDate { item["attemptDate"] = .number(Double(date)) }
            let result = attempt.rawSendAttemptResult ?? "OTHER"
            item["sendAttemptResult"] = .string(result)
            if let hint = SendAttemptResult.hint(forRaw: result) { item["hint"] = .string(hint) }
            items.append(.object(item))
        }
        try answer.add("sendAttempts", encoding: JSONValue.array(items))
        if decode, let signedPayload = status?.signedPayload, let verification = settings.verification {
            var decoder = SignedFieldDecoder(verifier: verification.makeVerifier(adapters: context.adapters, log: context.log), now: context.clock.now())
            if case .object(let decoded) = decoder.decode(.object(["signedPayload": .string(signedPayload)])), let payload = decoded["payload"] {
                try answer.add("payload", encoding: payload)
            }
        }
        context.log.info("test notification", ["environment": environment.rawValue, "outcome": outcome,
                                               "results": attempts.map { $0.rawSendAttemptResult ?? "?" }.joined(separator: ",")])
        switch outcome {
        case "delivered": return FunctionResponse(status: 200, body: answer.build())
        case "failed": return FunctionResponse(status: 200, body: answer.build(), exitCode: 69)
        default: return FunctionResponse(status: ErrorDisposition.retryLater.httpStatus, body: answer.build(), exitCode: ErrorDisposition.retryLater.exitCode)
        }
    }

    /// One status poll; Apple's "not found yet" counts as nothing reported.
    private func poll(_ client: AppStoreServerAPIClient, token: String,
                      environment: AppStoreAPIEnvironment) -> Result<CheckTestNotificationResponse, AppStoreAPIError> {
        do {
            return .success(try client.getTestNotificationStatus(testNotificationToken: token, environment: environment).value)
        } catch {
            if error.errorCode == 4040008 { return .success(CheckTestNotificationResponse(signedPayload: nil, sendAttempts: [])) }
            return .failure(error)
        }
    }
}
