import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `revoke-grant`: support ends a grant now, with a reason. The grant stays in the customer
/// record (revoked), and the revocation is a line of the audit trail.
public final class RevokeGrantFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case userId, grantId, reason
        }
        var userId: String
        var grantId: String
        var reason: String?
    }

    public struct Response: Encodable {
        var userId: String
        var grant: EntitlementGrant
    }

    public static let descriptor = FunctionDescriptor(
        name: "revoke-grant",
        route: "/customers/grants/revoke",
        method: "POST",
        visibility: .internal,
        summary: "End a support grant now, with a reason.",
        request: """
            {"userId": "...", "grantId": "<from grant-entitlement>", "reason": "why (kept in the audit trail)"}
            """,
        response: """
            {"userId", "grant": {... as grant-entitlement answers, with "revokedAt": <ms>}}
              A grant revoked already is answered as it is (revoking again changes nothing).
            grant_not_found: 404, exit 65.
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
        let grant = try CustomerRepository(store: try support.store()).revokeGrant(request.grantId, ofUser: request.userId, by: action)
        support.context.log.info("grant_revoked", ["user": request.userId, "grant": grant.grantId, "actor": action.actor])
        return Reply(Response(userId: request.userId, grant: grant))
    }
}
