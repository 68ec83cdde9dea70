import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `replay-events`: resends a range of the event log to one endpoint, in order, with the same
/// `webhook-id` as before (receivers deduplicate by it). For a backend that lost data, a new
/// endpoint that wants history, or dead letters after an outage (cleared once delivered).
public final class ReplayEventsFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case endpoint, fromSequence, toSequence, from, to, customerId, userId, types, budgetSeconds
        }
        var endpoint: String?
        var fromSequence: Int64?
        var toSequence: Int64?
        var from: RequestInstant?
        var to: RequestInstant?
        var customerId: String?
        var userId: String?
        var types: [String]?
        var budgetSeconds: Double?
    }

    public typealias Response = WebhookReplay.Report

    public static let descriptor = FunctionDescriptor(
        name: "replay-events",
        route: nil,
        method: "POST",
        visibility: .internal,
        summary: "Resend a range of the event log to one webhook endpoint, in order, with the same webhook-id; dead letters it delivers are cleared.",
        request: """
            {"endpoint": "default", "fromSequence": 1, "toSequence": 500, "from": "2026-11-01T08:00:00Z", "to": 1764600000000,
             "customerId": "user-42", "userId": "user-42", "types": ["REFUND"], "budgetSeconds": 50}
              endpoint is required; every other field narrows the range (bounds inclusive; from/to: when the event
              was recorded, milliseconds or ISO 8601); the endpoint's own types and environments apply too
            """,
        response: """
            {"endpoint", "host", "delivered": N, "failed": N, "held": N, "deadLettersCleared": N,
             "failures": {"<answer>": N}, "stoppedAfter": <sequence, when the budget ran out>}
              one attempt per event; held: later events of a customer whose earlier one failed (never out of order)
              the attempts are added to the endpoint's delivery counts (metrics: storekeeper_webhook_deliveries_total)
            exit 65 invalid_request: no endpoint, an endpoint not configured, a type not in the vocabulary
            exit 75 temporarily_unavailable when deliver-events holds the endpoint's lease (retry); store_unavailable
            exit 75 also when an event failed or the budget ran out; 78 as deliver-events
            """,
        variables: WebhookWiring.variables
    )

    private let context: FunctionContext
    private let wiring: WebhookWiring

    public init(context: FunctionContext) throws {
        self.context = context
        wiring = try WebhookWiring(context: context)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        guard let name = request.endpoint else { throw FunctionError.badInput(message: "endpoint is required") }
        let endpoint = try wiring.endpoint(named: name)
        let selection = try Self.selection(request)
        let budget = try wiring.budget(request.budgetSeconds)
        let store = try context.adapters.store()
        try wiring.relayPending(store)
        let replay = WebhookReplay(store: store, endpoint: endpoint, sender: try wiring.sender(), clock: context.clock)
        guard let report = try replay.run(selection, lease: wiring.leaseDuration, budget: budget) else {
            throw FunctionError.temporary(message: "another run is delivering to endpoint \(endpoint.name) now: try again shortly")
        }
        try WebhookDeliveryCounts.add(report, store: store)
        context.log.info("events_replayed", [
            "endpoint": endpoint.name, "host": endpoint.host, "delivered": report.delivered, "failed": report.failed,
            "held": report.held, "deadLettersCleared": report.deadLettersCleared,
        ])
        let complete = report.failed == 0 && report.held == 0 && report.stoppedAfter == nil
        return Reply(report, exitCode: complete ? 0 : 75)
    }

    static func selection(_ request: Request) throws -> WebhookReplay.Selection {
        if let from = request.fromSequence, let to = request.toSequence, from > to {
            throw FunctionError.badInput(message: "fromSequence is after toSequence")
        }
        if let from = request.from?.milliseconds, let to = request.to?.milliseconds, from > to {
            throw FunctionError.badInput(message: "from is after to")
        }
        if let types = request.types {
            for type in types where EventType(rawValue: type) == nil {
                throw FunctionError.badInput(message: "\(type.prefix(64)) is not an event type")
            }
        }
        return WebhookReplay.Selection(
            fromSequence: request.fromSequence, toSequence: request.toSequence, from: request.from?.milliseconds,
            to: request.to?.milliseconds, customerId: request.customerId, userId: request.userId,
            types: request.types.map(Set.init))
    }
}
