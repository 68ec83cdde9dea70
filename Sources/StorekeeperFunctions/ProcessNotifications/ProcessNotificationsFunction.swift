import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `process-notifications`: the worker, run by cron or a queue trigger. Claims queued
/// notifications under a lease, applies each to its entitlement, acknowledges; until the
/// queue is empty or the time budget is spent. Refunds and revocations come first.
public final class ProcessNotificationsFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case budgetSeconds
        }
        /// How long this run may work; default PROCESS_BUDGET_SECONDS or 50 (a cron minute).
        var budgetSeconds: Double?
    }

    public typealias Response = NotificationProcessor.Report

    public static let descriptor = FunctionDescriptor(
        name: "process-notifications",
        route: nil,
        method: "POST",
        visibility: .internal,
        summary: "Apply queued notifications to entitlements (cron or queue trigger): leased, retried with backoff, dead-lettered, never lost.",
        request: """
            {"budgetSeconds": 50}   (optional; {} uses PROCESS_BUDGET_SECONDS, default 50)
            """,
        response: """
            {"applied": N, "stale": N, "duplicate": N, "ignored": N, "failed": N, "deadLettered": N, "remaining": N,
             "events": N, "eventMilliseconds": T, "refundRequests": {"recorded": N, "closed": N, "withoutRequest": N,
             "answered": N, "waiting": N, "notAnswered": N, "noCredentials": N}}
              stale: older than what was already applied; duplicate: applied before;
              ignored: TEST, unknown types, consumables; failed: given back with backoff;
              remaining: still queued when the budget ran out; events: put in the event log
              (each notification's once it is acknowledged, then any other function left waiting),
              eventMilliseconds: the time that took; the run then counts the metrics of the new events
              (at most 5000; `metrics` answers them) and counts each acknowledged notification by type
              refundRequests: CONSUMPTION_REQUEST recorded, closed by REFUND / REFUND_DECLINED (withoutRequest: an
              outcome for a transaction with no request: kept for a request met later, in no report), then the answers due worked (at most 20 sends a run,
              after every acknowledgement): answered (Send Consumption Information v2 accepted), waiting (no consent yet,
              no API key: noCredentials, Apple 5xx/429/unreachable: retried at later runs with backoff until the
              deadline, signedDate + 12 h), notAnswered (no consent by the deadline, ASSIGNED, Apple's 4xx, deadline
              passed); an answer that fails never fails a notification. Without APPSTORE_KEY_ID, APPSTORE_ISSUER_ID and
              APPSTORE_PRIVATE_KEY requests are recorded and reported, never answered.
            exit 75 {"error": {"code": "store_unavailable", ...}} when the store cannot be used
              (down, full, read-only, damaged): the run stops without spending any notification's
              attempts; nothing is lost, leases expire and the next run picks the work up
            exit 78 when STORE_URL is malformed or the store refuses its credentials
            """,
        variables: [
            .declared(RuntimeSettings.storeURL), .declared(StorekeeperSettings.processBudget),
            .declared(StorekeeperSettings.processLease),
        ] + StorekeeperSettings.eventCatalogVariables + refundAnswerVariables
    )

    private let context: FunctionContext
    private let defaultBudget: Double
    private let lease: Duration
    /// For the events' customer state.
    private let catalog: Catalog
    /// nil when no API key is configured: refund requests are recorded, not answered.
    private let api: AppStoreAPISettings?

    public init(context: FunctionContext) throws {
        self.context = context
        catalog = try StorekeeperSettings.eventCatalog(in: context.environment)
        api = try Self.apiSettings(context.environment)
        defaultBudget = try context.environment.required(StorekeeperSettings.processBudget)
        lease = try context.environment.required(StorekeeperSettings.processLease)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let seconds = request.budgetSeconds ?? defaultBudget
        guard seconds > 0, seconds <= 3600 else {
            throw FunctionError.badInput(code: .invalidRequest, message: "budgetSeconds must be between 0 and 3600")
        }
        let store = try context.adapters.store()
        let processor = NotificationProcessor(store: store, lease: lease, time: context.clock,
                                              events: EventRecording.of(context, catalog: catalog, deferred: true),
                                              refunds: refundAnswerer(store: store))
        let log = context.log
        let report = try processor.run(budget: .milliseconds(Int64(seconds * 1000))) { id, error in
            log.warning("notification_failed", ["notificationUUID": id, "error": String(describing: error)])
        }
        log.info("notifications_processed", [
            "applied": report.applied, "stale": report.stale, "duplicate": report.duplicate,
            "ignored": report.ignored, "failed": report.failed, "deadLettered": report.deadLettered,
            "remaining": report.remaining, "events": report.events,
            "refundRequestsRecorded": report.refundRequests.recorded, "refundRequestsAnswered": report.refundRequests.answered,
        ])
        if report.refundRequests.noCredentials > 0 {
            log.warning("refund_requests_unanswered", ["waiting": report.refundRequests.noCredentials,
                                                       "why": "APPSTORE_KEY_ID, APPSTORE_ISSUER_ID and APPSTORE_PRIVATE_KEY are not set"])
        }
        return Reply(report)
    }

    /// What the worker reads to answer refund requests; all optional together.
    static let refundAnswerVariables: [SettingUse] = [
        .optional(StorekeeperSettings.apiKeyId, "with APPSTORE_ISSUER_ID and APPSTORE_PRIVATE_KEY: refund requests are answered (without: recorded only)"),
        .optional(StorekeeperSettings.apiIssuerId), .optional(StorekeeperSettings.apiPrivateKey),
        .declared(StorekeeperSettings.apiBaseURL), .declared(StorekeeperSettings.apiSandboxBaseURL),
        .declared(StorekeeperSettings.apiTimeout, "each answer is one attempt of at most 15 s"), .declared(RuntimeSettings.caBundle),
    ]

    /// The API key when any part of it is set (a part missing is exit 78), else nil.
    static func apiSettings(_ environment: EnvironmentVariables) throws -> AppStoreAPISettings? {
        let parts = [environment.isSet(StorekeeperSettings.apiKeyId), environment.isSet(StorekeeperSettings.apiIssuerId),
                     environment.isSet(StorekeeperSettings.apiPrivateKey)]
        return parts.contains(true) ? try AppStoreAPISettings(environment: environment) : nil
    }

    private func refundAnswerer(store: any KeyValueStore) -> RefundAnswerer {
        let api = api
        let context = context
        return RefundAnswerer(store: store, catalog: catalog, time: context.clock) { bundleId, policy in
            try api?.makeClient(context: context, bundleId: bundleId, retryPolicy: policy)
        }
    }
}
