import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `grant-entitlement`: support gives a user an entitlement until a date or for a number of
/// days, with a reason. The grant is kept in the user's customer record, shows in
/// get-customer with `grantedBy: "grant"`, and is a line of the audit trail.
public final class GrantEntitlementFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case userId, entitlement, until, durationDays, reason, bundleId
        }
        var userId: String
        var entitlement: String
        /// Milliseconds since 1970.
        var until: Int64?
        var durationDays: Int?
        var reason: String?
        var bundleId: String?
    }

    public struct Response: Encodable {
        var userId: String
        var grant: EntitlementGrant
    }

    /// A grant of more than 100 years is a typo.
    static let maximumDays = 36_500

    public static let descriptor = FunctionDescriptor(
        name: "grant-entitlement",
        route: "/customers/grants",
        method: "POST",
        visibility: .internal,
        summary: "Give a user an entitlement until a date or for a number of days, with a reason (support).",
        request: """
            {"userId": "...", "entitlement": "pro", "until": <ms since 1970> | "durationDays": 30,
             "reason": "why (kept in the audit trail)", "bundleId": "<optional: one app of the deployment>"}
              exactly one of until and durationDays; the entitlement must be one the catalog declares
              (without a catalog, entitlements are named after products: any name).
            """,
        response: """
            {"userId", "grant": {"grantId", "entitlement", "bundleId", "grantedAt", "expiresDate", "reason",
             "grantedBy": "<the caller's token name>", "revokedAt": null}}
            unknown_entitlement, invalid_request (also a bundleId the deployment does not serve): 400, exit 65; customer_deleted: 404, exit 65.
            """,
        variables: AppStoreSettings.catalogVariables + SupportWiring.variables,
        scope: .support
    )

    private let support: SupportWiring
    private let catalog: Catalog

    public init(context: FunctionContext) throws {
        support = SupportWiring(context: context)
        catalog = try StorekeeperSettings.catalog(in: context.environment)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        try SupportWiring.checkUserId(request.userId, field: "userId")
        let action = support.action(for: call, reason: try SupportWiring.reason(request.reason))
        let expiresDate = try Self.expiresDate(request, now: action.date)
        let grant = try CustomerRepository(store: try support.store(), events: EventRecording.of(support.context, catalog: catalog))
            .grant(request.entitlement, toUser: request.userId, bundleId: request.bundleId, expiresDate: expiresDate,
                   catalog: catalog, by: action)
        support.context.log.info("entitlement_granted", ["user": request.userId, "entitlement": grant.entitlement,
                                                         "grant": grant.grantId, "actor": action.actor])
        return Reply(Response(userId: request.userId, grant: grant))
    }

    static func expiresDate(_ request: Request, now: Int64) throws -> Int64 {
        switch (request.until, request.durationDays) {
        case (let until?, nil):
            return until
        case (nil, let days?):
            guard days > 0, days <= maximumDays else {
                throw FunctionError.badInput(message: "durationDays must be 1 to \(maximumDays)")
            }
            return now + Int64(days) * 86_400_000
        default:
            throw FunctionError.badInput(message: "give exactly one of until and durationDays")
        }
    }
}
