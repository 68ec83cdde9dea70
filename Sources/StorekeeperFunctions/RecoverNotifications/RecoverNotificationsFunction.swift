import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `recover-notifications`: after an outage, replay what Apple sent during a window from Get
/// Notification History through exactly the path of `receive-notification` (verification,
/// deduplication, queue), so only what was missed is queued and nothing applies twice.
public final class RecoverNotificationsFunction: FunctionHandler {
    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case startDate, endDate, notificationType, notificationSubtype, originalTransactionId, transactionId
            case onlyFailures, environment, budgetSeconds, restart
        }
        var startDate: RequestInstant?
        var endDate: RequestInstant?
        var notificationType: String?
        var notificationSubtype: String?
        /// Apple filters by any transaction id of the customer; the original one is what an
        /// operator usually has.
        var originalTransactionId: String?
        var transactionId: String?
        var onlyFailures: Bool?
        var environment: String?
        var budgetSeconds: Double?
        var restart: Bool?
    }

    struct Response: Encodable {
        var report: RecoveryReport
        /// What each first-attempt result means for the operator.
        var explanations: [String: String]
    }

    static let variables: [EnvironmentVariableHelp] = ReconcileFunction.variables.filter { !$0.name.hasPrefix("RECONCILE_") } + [
        .optional("RECOVER_BUDGET_SECONDS", "default time budget of a run (600); an unfinished run resumes at its saved page"),
    ]

    public static let descriptor = FunctionDescriptor(
        name: "recover-notifications",
        route: nil,
        method: "POST",
        visibility: .internal,
        summary: "After an outage: replay Apple's notification history for a window through the webhook's verification, deduplication and queue, and explain how Apple's deliveries went.",
        request: """
            {"startDate": ms | "2026-11-01T00:00:00Z", "endDate": ms | "..." (default now),
             "notificationType": "DID_RENEW", "notificationSubtype": "...", "originalTransactionId": "...",
             "onlyFailures": true, "environment": "Production" | "Sandbox", "budgetSeconds": 600, "restart": false}
              Apple keeps 180 days and accepts one filter at a time besides the dates. A run
              resumes at the page where the same request stopped, unless restart.
            """,
        response: """
            {"report": {"pages", "fetched", "queued", "alreadyKnown", "otherEnvironment",
              "invalid": {"VERIFICATION_FAILURE": n, ...}, "firstSendAttemptResults": {"SUCCESS": n,
              "SSL_ISSUE": n, "TIMED_OUT": n, ...}, "resumed", "outOfTime", "stoppedBy"},
             "explanations": {"TIMED_OUT": "what it means and what to check", ...}}
              queued notifications are applied by process-notifications. exit 75 when Apple or
              the store stopped answering (run again: it resumes), 78 when Apple refused the key.
            """,
        variables: variables
    )

    private let settings: AppStoreAPISettings
    private let verification: AppStoreSettings
    private let context: FunctionContext
    private let defaultBudget: Double

    public init(context: FunctionContext) throws {
        settings = try AppStoreAPISettings(environment: context.environment)
        guard let verification = settings.verification else {
            throw FunctionError.configuration("APPSTORE_ROOT_CERTS is required: recovered notifications are verified like delivered ones")
        }
        self.verification = verification
        self.context = context
        defaultBudget = try ReconcileFunction.positiveNumber("RECOVER_BUDGET_SECONDS", in: context.environment, default: 600, maximum: 86_400)
    }

    public func handle(_ request: FunctionRequest) throws -> FunctionResponse {
        let body = try request.decode(Request.self)
        let now = context.clock.now().millisecondsSince1970
        guard let start = body.startDate?.milliseconds else {
            throw FunctionError.badInput(message: "startDate is required (milliseconds since 1970 or an ISO 8601 date)")
        }
        let end = body.endDate?.milliseconds ?? now
        guard start < end else {
            throw FunctionError.badInput(message: "startDate must be before endDate")
        }
        if body.originalTransactionId != nil && body.transactionId != nil {
            throw FunctionError.badInput(message: "give originalTransactionId or transactionId, not both")
        }
        let seconds = body.budgetSeconds ?? defaultBudget
        guard seconds > 0, seconds <= 86_400 else {
            throw FunctionError.badInput(message: "budgetSeconds must be between 0 and 86400")
        }
        var asked = NotificationHistoryRequest(
            startDate: start, endDate: body.endDate?.milliseconds, notificationType: body.notificationType,
            notificationSubtype: body.notificationSubtype,
            transactionId: body.originalTransactionId ?? body.transactionId, onlyFailures: body.onlyFailures)
        let environment = try AppStoreAPISettings.environment(body.environment)
        // The cursor is named by the question as asked: "until now" resumes as "until now".
        let cursorName = NotificationRecovery.cursorName(asked: asked, environment: environment.rawValue)
        asked.endDate = end
        let query = asked

        let store = try context.adapters.store()
        let timing = SystemRetryTiming()
        let deadline = timing.now() + .milliseconds(Int64(seconds * 1000))
        let client = try settings.makeClient(context: context, timing: timing)
        let inbox = verification.makeNotificationInbox(adapters: context.adapters)
        let recovery = NotificationRecovery(
            store: store, inbox: inbox, source: APINotificationHistory(client: client, environment: environment),
            clock: context.clock)

        let report: RecoveryReport
        do {
            report = try recovery.run(query, cursorName: cursorName, restart: body.restart ?? false) { timing.now() >= deadline }
        } catch let error as RecoveryError {
            return answer(error)
        }
        log(report)
        return try .json(Response(report: report, explanations: report.explanations))
    }

    private func answer(_ error: RecoveryError) -> FunctionResponse {
        let (failure, report): (NotificationHistoryFailure, RecoveryReport) = switch error {
        case .appleUnavailable(let failure, let report): (failure, report)
        case .appleRefused(let failure, let report): (failure, report)
        }
        log(report)
        context.log.warning("notification history stopped", ["code": failure.code])
        var body = JSONObjectBuilder()
        var inner = JSONObjectBuilder()
        inner.add("code", failure.code)
        inner.add("message", failure.disposition == .upstreamRefused
            ? "Apple refused the API key: check APPSTORE_KEY_ID, APPSTORE_ISSUER_ID, APPSTORE_PRIVATE_KEY and APPSTORE_BUNDLE_ID"
            : failure.reason)
        inner.add("retryable", failure.isRetryable)
        body.add("error", rawJSON: inner.build())
        try? body.add("report", encoding: report)
        return FunctionResponse(refusing: failure, body: body.build())
    }

    private func log(_ report: RecoveryReport) {
        context.log.info("notification history replayed", [
            "pages": report.pages, "fetched": report.fetched, "queued": report.queued,
            "alreadyKnown": report.alreadyKnown, "invalid": report.invalid.values.reduce(0, +),
        ])
    }
}

/// An instant in a request: Apple's milliseconds, or an ISO 8601 date an operator can type.
struct RequestInstant: Decodable {
    let milliseconds: Int64

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            milliseconds = number
            return
        }
        let text = try container.decode(String.self)
        guard let date = try? Date(text, strategy: .iso8601) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not milliseconds or an ISO 8601 date")
        }
        milliseconds = date.millisecondsSince1970
    }
}
