import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `delete-customer`: removes a user's mappings (subscriptions, appAccountTokens, Sign in
/// with Apple's user id) and personal data (the account, its sessions and refresh token),
/// and keeps the purchases, anonymous, so revenue figures do not change. What stays is a
/// tombstone with the audit trail.
public final class DeleteCustomerFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case userId, reason
        }
        var userId: String
        var reason: String?
    }

    public struct Response: Encodable {
        var userId: String
        var alreadyDeleted: Bool
        var subscriptionsUnlinked: Int
        var appAccountTokensReleased: Int
        var accountDeleted: Bool
        var sessionsEnded: Int
        var kept: [String]
    }

    public static let descriptor = FunctionDescriptor(
        name: "delete-customer",
        route: "/customers/delete",
        method: "POST",
        visibility: .internal,
        summary: "Delete a customer: their links to purchases and their personal data; the purchases stay, anonymous.",
        request: """
            {"userId": "...", "reason": "why (kept in the tombstone's audit trail: no personal data in it)"}
              Apple is not asked: revoke Sign in with Apple first with siwa-revoke when the user has it.
            """,
        response: """
            {"userId", "alreadyDeleted": false, "subscriptionsUnlinked": 2, "appAccountTokensReleased": 1,
             "accountDeleted": true, "sessionsEnded": 1, "kept": ["purchases", "auditTrail"]}
              Safe to repeat: a rerun after a kill finishes the deletion.
            An unknown user: 404 not_found.
            """,
        variables: SupportWiring.variables,
        scope: .support
    )

    private let support: SupportWiring

    public init(context: FunctionContext) throws {
        support = SupportWiring(context: context)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        try SupportWiring.checkUserId(request.userId, field: "userId")
        let action = support.action(for: call, reason: try SupportWiring.reason(request.reason))
        let outcome = try CustomerDeletion(store: try support.store()).delete(userId: request.userId, by: action)
        support.context.log.info("customer_deleted", ["user": request.userId, "actor": action.actor,
                                                      "subscriptions_unlinked": outcome.subscriptionsUnlinked])
        return Reply(Response(userId: outcome.userId, alreadyDeleted: outcome.alreadyDeleted,
                              subscriptionsUnlinked: outcome.subscriptionsUnlinked,
                              appAccountTokensReleased: outcome.appAccountTokensReleased,
                              accountDeleted: outcome.accountDeleted, sessionsEnded: outcome.sessionsEnded,
                              kept: ["purchases", "auditTrail"]))
    }
}
