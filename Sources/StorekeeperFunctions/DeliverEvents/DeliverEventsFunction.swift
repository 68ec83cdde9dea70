import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `deliver-events`: delivers every event of the log to every configured webhook endpoint,
/// signed as Standard Webhooks 1.0, in order per customer, retried on a schedule, at least
/// once. One pass (`{}`, for cron), a loop (`{"follow": true}`), or the endpoints' state
/// (`{"status": true}`).
public final class DeliverEventsFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case follow, status, budgetSeconds
        }
        var follow: Bool?
        var status: Bool?
        /// A pass's budget; default DELIVER_BUDGET_SECONDS (50). Not with follow.
        var budgetSeconds: Double?
    }

    public typealias Response = DeliverEventsAnswer

    public static let descriptor = FunctionDescriptor(
        name: "deliver-events",
        route: nil,
        method: "POST",
        visibility: .internal,
        summary: "Deliver the event log to the webhook endpoints (cron or a long-running loop): Standard Webhooks signatures, in order per customer, retried, dead-lettered, at least once.",
        request: """
            {}                       one pass over what is due (cron); {"budgetSeconds": 50} bounds it
            {"follow": true}         passes until SIGTERM or SIGINT: sleeps until the next due time, or 1 s for new events
            {"status": true}         each endpoint's state; sends nothing
            """,
        response: """
            a pass: {"endpoints": [{"endpoint", "host", "delivered", "failed", "deadLettered", "skipped",
                      "pending", "busy", "nextDueAt"}], "delivered": N, "pending": N}
              exit 0 when nothing is pending, 75 when something is (a retry not yet due, the budget spent,
              back-pressure, another run holding an endpoint's lease: busy)
            status: {"endpoints": [{"name", "host", "cursor", "lastSequence", "pending", "oldestPendingAgeSeconds",
                      "waitingCustomers", "failures": {"<answer>": N}, "deadLetters": {"count", "byAnswer",
                      "oldest": [{"id", "sequence", "type", "customerId", "attempts", "firstFailedAt", "deadAt", "lastAnswer"}]}}]}
            answers are an HTTP status ("500"), "timeout", "connection refused", "tls failure", "response too large"
            each pass adds its attempts (delivered, failed, dead) to the endpoint's counts in the store, one write per
              endpoint after the pass (a run killed mid-pass loses that pass's counts): metrics answers them
            exit 75 store_unavailable when the store cannot be used; 78 when no endpoint is configured,
              a secret is missing or malformed, or both STOREKEEPER_WEBHOOK_URL and the catalog's webhooks are set
            """,
        variables: WebhookWiring.variables
    )

    private let context: FunctionContext
    let wiring: WebhookWiring

    public init(context: FunctionContext) throws {
        self.context = context
        wiring = try WebhookWiring(context: context)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let modes = [request.follow == true, request.status == true].filter { $0 }.count
        guard modes <= 1 else { throw FunctionError.badInput(message: "follow and status are two modes: ask for one") }
        guard request.follow != true || request.budgetSeconds == nil else {
            throw FunctionError.badInput(message: "budgetSeconds is for one pass, not follow")
        }
        let store = try context.adapters.store()
        if request.status == true {
            let now = context.clock.now().millisecondsSince1970
            let statuses = try wiring.endpoints.map { try WebhookEndpointStatus.read($0, store: store, now: now) }
            return Reply(.status(statuses))
        }
        if request.follow == true {
            return Reply(.pass(try follow(store)))
        }
        let reports = try pass(store, budget: try wiring.budget(request.budgetSeconds))
        let pending = reports.contains { $0.pending > 0 || $0.busy }
        return Reply(.pass(reports), exitCode: pending ? 75 : 0)
    }

    /// One pass over every endpoint: outboxes into the log, the log trimmed, then each endpoint.
    func pass(_ store: any KeyValueStore, budget: Duration, stop: @escaping () -> Bool = { false }) throws -> [WebhookPassReport] {
        try wiring.relayPending(store)
        try EventLog(store: store).trim(olderThanDays: wiring.retentionDays, now: context.clock.now().millisecondsSince1970)
        let sender = try wiring.sender()
        let log = context.log
        var reports: [WebhookPassReport] = []
        for endpoint in wiring.endpoints {
            let deliverer = WebhookDeliverer(
                store: store, endpoint: endpoint, sender: sender, clock: context.clock, leaseDuration: wiring.leaseDuration
            ) { event, answer, nextDueAt in
                var fields: [String: any LogFieldValue] = [
                    "endpoint": endpoint.name, "host": endpoint.host, "eventId": event.id, "sequence": event.sequence, "answer": answer,
                ]
                if let nextDueAt { fields["nextDueAt"] = nextDueAt }
                log.warning(nextDueAt == nil ? "webhook_dead_lettered" : "webhook_failed", fields)
            }
            let report = try deliverer.pass(budget: budget, stop: stop)
            try WebhookDeliveryCounts.add(report, store: store)
            reports.append(report)
        }
        return reports
    }

    /// Passes until a stop signal: each followed by a sleep until the earliest due retry, at
    /// most a second (new events), none when the pass stopped with work left.
    private func follow(_ store: any KeyValueStore) throws -> [WebhookPassReport] {
        StopSignal.install()
        var totals = wiring.endpoints.map(WebhookPassReport.init(endpoint:))
        while !StopSignal.isRequested {
            let reports = try pass(store, budget: .seconds(30)) { StopSignal.isRequested }
            for (index, report) in reports.enumerated() { totals[index].add(report) }
            if reports.contains(where: { $0.delivered + $0.failed + $0.deadLettered > 0 }) {
                context.log.info("events_delivered", ["delivered": reports.reduce(0) { $0 + $1.delivered },
                                                      "failed": reports.reduce(0) { $0 + $1.failed }])
            }
            let now = context.clock.now().millisecondsSince1970
            let due = reports.compactMap(\.nextDueAt).min().map { max(0, $0 - now) } ?? 1000
            if StopSignal.sleep(.milliseconds(min(due, 1000)), clock: context.clock) { break }
        }
        return totals
    }
}
