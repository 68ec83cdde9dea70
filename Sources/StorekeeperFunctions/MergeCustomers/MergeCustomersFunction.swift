import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `merge-customers`: an anonymous user id merged into an identified one. Its subscriptions,
/// appAccountTokens and grants move; both timelines are kept, each with a MERGE line.
public final class MergeCustomersFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case from, into, reason
        }
        var from: String
        var into: String
        var reason: String?
    }

    public typealias Response = CustomerMerge.Outcome

    public static let descriptor = FunctionDescriptor(
        name: "merge-customers",
        route: "/customers/merge",
        method: "POST",
        visibility: .internal,
        summary: "Merge an anonymous user id into an identified one: subscriptions, tokens and grants move, both histories stay.",
        request: """
            {"from": "<anonymous user id>", "into": "<identified user id>", "reason": "<optional: kept in the audit trail>"}
            """,
        response: """
            {"from", "into", "subscriptionsMoved": 1, "appAccountTokensMoved": 1, "grantsMoved": 0}
              Idempotent: a rerun after a kill finishes the merge (counts then say what it still had to move).
            An unknown from: 404 not_found. from merged into another id, or into merged itself: 400 already_merged.
            A deleted customer: 404 customer_deleted.
            """,
        variables: SupportWiring.variables,
        scope: .support
    )

    private let support: SupportWiring

    public init(context: FunctionContext) throws {
        support = SupportWiring(context: context)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        try SupportWiring.checkUserId(request.from, field: "from")
        try SupportWiring.checkUserId(request.into, field: "into")
        let reason = try request.reason.map { try SupportWiring.reason($0) }
        let action = support.action(for: call, reason: reason)
        let outcome = try CustomerMerge(store: try support.store()).merge(request.from, into: request.into, by: action)
        support.context.log.info("customers_merged", ["from": request.from, "into": request.into, "actor": action.actor,
                                                      "subscriptions_moved": outcome.subscriptionsMoved])
        return Reply(outcome)
    }
}
