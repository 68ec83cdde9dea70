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
             "events": N, "eventMilliseconds": T}
              stale: older than what was already applied; duplicate: applied before;
              ignored: TEST, unknown types, consumables; failed: given back with backoff;
              remaining: still queued when the budget ran out; events: put in the event log
              (each notification's once it is acknowledged, then any other function left waiting),
              eventMilliseconds: the time that took; the run then counts the metrics of the new events
              (at most 5000; `metrics` answers them) and counts each acknowledged notification by type
            exit 75 {"error": {"code": "store_unavailable", ...}} when the store cannot be used
              (down, full, read-only, damaged): the run stops without spending any notification's
              attempts; nothing is lost, leases expire and the next run picks the work up
            exit 78 when STORE_URL is malformed or the store refuses its credentials
            """,
        variables: [
            .declared(RuntimeSettings.storeURL), .declared(StorekeeperSettings.processBudget),
            .declared(StorekeeperSettings.processLease),
        ] + StorekeeperSettings.eventCatalogVariables
    )

    private let context: FunctionContext
    private let defaultBudget: Double
    private let lease: Duration
    /// For the events' customer state.
    private let catalog: Catalog

    public init(context: FunctionContext) throws {
        self.context = context
        catalog = try StorekeeperSettings.eventCatalog(in: context.environment)
        defaultBudget = try context.environment.required(StorekeeperSettings.processBudget)
        lease = try context.environment.required(StorekeeperSettings.processLease)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let seconds = request.budgetSeconds ?? defaultBudget
        guard seconds > 0, seconds <= 3600 else {
            throw FunctionError.badInput(code: .invalidRequest, message: "budgetSeconds must be between 0 and 3600")
        }
        let processor = NotificationProcessor(store: try context.adapters.store(), lease: lease, time: context.clock,
                                              events: EventRecording.of(context, catalog: catalog, deferred: true))
        let log = context.log
        let report = try processor.run(budget: .milliseconds(Int64(seconds * 1000))) { id, error in
            log.warning("notification_failed", ["notificationUUID": id, "error": String(describing: error)])
        }
        log.info("notifications_processed", [
            "applied": report.applied, "stale": report.stale, "duplicate": report.duplicate,
            "ignored": report.ignored, "failed": report.failed, "deadLettered": report.deadLettered,
            "remaining": report.remaining, "events": report.events,
        ])
        return Reply(report)
    }
}
