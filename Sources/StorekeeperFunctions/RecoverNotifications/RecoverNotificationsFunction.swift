import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `recover-notifications`: after an outage, replay what Apple sent during a window from Get
/// Notification History through exactly the path of `receive-notification` (verification,
/// deduplication, queue), so only what was missed is queued and nothing applies twice.
public final class RecoverNotificationsFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case startDate, endDate, notificationType, notificationSubtype, originalTransactionId, transactionId
            case onlyFailures, bundleId, environment, budgetSeconds, restart
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
        /// Whose notification history (the only app without it): Apple keeps one per app.
        var bundleId: String?
        var environment: String?
        var budgetSeconds: Double?
        var restart: Bool?

        /// The window's start and end in milliseconds (the end is `now` by default), once the
        /// request is a question Apple takes.
        func window(now: Int64) throws -> (start: Int64, end: Int64) {
            guard let start = startDate?.milliseconds else {
                throw FunctionError.badInput(message: "startDate is required (milliseconds since 1970 or an ISO 8601 date)")
            }
            let end = endDate?.milliseconds ?? now
            guard start < end else {
                throw FunctionError.badInput(message: "startDate must be before endDate")
            }
            if originalTransactionId != nil && transactionId != nil {
                throw FunctionError.badInput(message: "give originalTransactionId or transactionId, not both")
            }
            return (start, end)
        }

        /// Apple's question, with the end of the window filled in, and the name of its cursor,
        /// which is the question as asked: "until now" resumes as "until now", and one app's
        /// run never resumes another's.
        func query(_ window: (start: Int64, end: Int64), app: CatalogApp,
                   environment: AppStoreAPIEnvironment) -> (query: NotificationHistoryRequest, cursorName: String) {
            var asked = NotificationHistoryRequest(
                startDate: window.start, endDate: endDate?.milliseconds, notificationType: notificationType,
                notificationSubtype: notificationSubtype,
                transactionId: originalTransactionId ?? transactionId, onlyFailures: onlyFailures)
            let cursorName = NotificationRecovery.cursorName(asked: asked, environment: "\(app.bundleId) \(environment.rawValue)")
            asked.endDate = window.end
            return (asked, cursorName)
        }
    }

    /// The report, and either what each first-attempt result means for the operator, or why
    /// the run stopped.
    public struct Response: Encodable {
        var report: RecoveryReport
        var explanations: [String: String]?
        var error: FailureAnswer.Detail?
    }

    static let variables: [SettingUse] = ReconcileFunction.apiVariables + [.declared(StorekeeperSettings.recoverBudget)]

    public static let descriptor = FunctionDescriptor(
        name: "recover-notifications",
        route: nil,
        method: "POST",
        visibility: .internal,
        summary: "After an outage: replay Apple's notification history for a window through the webhook's verification, deduplication and queue, and explain how Apple's deliveries went.",
        request: """
            {"startDate": ms | "2026-11-01T00:00:00Z", "endDate": ms | "..." (default now),
             "notificationType": "DID_RENEW", "notificationSubtype": "...", "originalTransactionId": "...",
             "onlyFailures": true, "bundleId": "...", "environment": "Production" | "Sandbox", "budgetSeconds": 600,
             "restart": false}
              \(AppStoreAPISettings.bundleIdHelp) (Apple keeps a history per app).
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
            Each run's report is kept in the store (the last 30 per app and environment, written once as the run
              ends; one Apple stopped or the budget cut short is kept with "complete": false, one the store failed
              is not kept): metrics answers the last one (storekeeper_recovery_*), the dashboard shows them.
            """,
        variables: variables
    )

    private let run: ResumableRun
    private let context: FunctionContext
    private let defaultBudget: Double

    public init(context: FunctionContext) throws {
        run = try ResumableRun(environment: context.environment, rootsRequiredBecause: "recovered notifications are verified like delivered ones")
        self.context = context
        defaultBudget = try context.environment.required(StorekeeperSettings.recoverBudget)
    }

    public func handle(_ request: Request, call _: FunctionRequest) throws -> Reply<Response> {
        let window = try request.window(now: context.clock.now().millisecondsSince1970)
        let time = context.clock
        let deadline = try ResumableRun.deadline(budgetSeconds: request.budgetSeconds, default: defaultBudget, time: time)
        let app = try run.settings.catalog.app(requested: request.bundleId)
        let environment = try AppStoreAPISettings.environment(request.environment)
        let asked = request.query(window, app: app, environment: environment)
        let store = try context.adapters.store()
        let client = try run.settings.makeClient(context: context, app: app)
        let recovery = NotificationRecovery(
            store: store, inbox: run.verification.makeNotificationInbox(adapters: context.adapters),
            source: APINotificationHistory(client: client, environment: environment), clock: context.clock)
        let keeper = RecoveryRunKeeper(store: store, shard: MetricsShardID(app: app.bundleId, environment: environment.rawValue),
                                       window: window, clock: time, log: context.log)
        do {
            let report = try recovery.run(asked.query, cursorName: asked.cursorName, restart: request.restart ?? false) { time.monotonic() >= deadline }
            try keeper.keep(report)
            return Reply(Response(report: report, explanations: report.explanations))
        } catch let error as RecoveryError {
            return try answer(error, keeper)
        }
    }

    private func answer(_ error: RecoveryError, _ keeper: RecoveryRunKeeper) throws -> Reply<Response> {
        let (failure, report): (NotificationHistoryFailure, RecoveryReport) = switch error {
        case .appleUnavailable(let failure, let report): (failure, report)
        case .appleRefused(let failure, let report): (failure, report)
        }
        try keeper.keep(report)
        context.log.warning("notification_history_stopped", ["code": failure.code])
        let refusedKey = failure.disposition == .upstreamRefused
        let message = refusedKey
            ? "Apple refused the API key: check APPSTORE_KEY_ID, APPSTORE_ISSUER_ID, APPSTORE_PRIVATE_KEY and APPSTORE_BUNDLE_ID"
            : failure.reason
        return Reply(Response(report: report, error: FailureAnswer.Detail(code: failure.code, message: message, retryable: failure.isRetryable)),
                     refusing: failure)
    }
}
