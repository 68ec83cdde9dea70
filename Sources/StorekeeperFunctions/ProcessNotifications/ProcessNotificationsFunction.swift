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
            {"applied": N, "stale": N, "duplicate": N, "ignored": N, "failed": N, "deadLettered": N, "remaining": N}
              stale: older than what was already applied; duplicate: applied before;
              ignored: TEST, unknown types, consumables; failed: given back with backoff;
              remaining: still queued when the budget ran out
            exit 75 {"error": {"code": "store_unavailable", ...}} when the store cannot be used
              (down, full, read-only, damaged): the run stops without spending any notification's
              attempts; nothing is lost, leases expire and the next run picks the work up
            exit 78 when STORE_URL is malformed or the store refuses its credentials
            """,
        variables: [
            EnvironmentVariableHelp(name: StoreLocation.variable, required: false,
                meaning: "where state lives: sqlite:<path> (default sqlite:var/storekeeper.db) or redis://..."),
            EnvironmentVariableHelp(name: "PROCESS_BUDGET_SECONDS", required: false,
                meaning: "default time budget of a run (50)"),
            EnvironmentVariableHelp(name: "PROCESS_LEASE_SECONDS", required: false,
                meaning: "how long a claimed notification is hidden from other workers; a worker killed mid-way gives it back after this long (30; at most 3600)"),
        ]
    )

    private let context: FunctionContext
    private let defaultBudget: Double
    private let lease: Duration

    public init(context: FunctionContext) throws {
        self.context = context
        if let text = context.environment.optional("PROCESS_BUDGET_SECONDS") {
            guard let value = Double(text), value > 0 else {
                throw FunctionError.configuration("PROCESS_BUDGET_SECONDS must be a positive number of seconds")
            }
            defaultBudget = value
        } else {
            defaultBudget = 50
        }
        if let text = context.environment.optional("PROCESS_LEASE_SECONDS") {
            // At least a millisecond (the stores' unit), at most an hour: a longer lease only
            // delays the retry of work a dead worker held.
            guard let value = Double(text), value >= 0.001, value <= 3600 else {
                throw FunctionError.configuration("PROCESS_LEASE_SECONDS must be a number of seconds between 0.001 and 3600")
            }
            lease = .milliseconds(Int64((value * 1000).rounded()))
        } else {
            lease = NotificationProcessor.defaultLease
        }
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let seconds = request.budgetSeconds ?? defaultBudget
        guard seconds > 0, seconds <= 3600 else {
            throw FunctionError.badInput(code: .invalidRequest, message: "budgetSeconds must be between 0 and 3600")
        }
        let processor = NotificationProcessor(store: try context.adapters.store(), lease: lease, time: context.clock)
        let log = context.log
        let report = try processor.run(budget: .milliseconds(Int64(seconds * 1000))) { id, error in
            log.warning("notification failed", ["notificationUUID": id, "error": String(describing: error)])
        }
        log.info("notifications processed", [
            "applied": report.applied, "stale": report.stale, "duplicate": report.duplicate,
            "ignored": report.ignored, "failed": report.failed, "deadLettered": report.deadLettered,
            "remaining": report.remaining,
        ])
        return Reply(report)
    }
}
