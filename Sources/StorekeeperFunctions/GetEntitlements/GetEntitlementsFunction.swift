import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `get-entitlements`: what a user may use now. By user id, appAccountToken or original
/// transaction id; answers every entitlement with one boolean, `active`, per entitlement and
/// for the user as a whole.
public final class GetEntitlementsFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case userId, appAccountToken, originalTransactionId
        }
        var userId: String?
        var appAccountToken: String?
        var originalTransactionId: String?

        /// The one key given, or nil when none, several or an empty one is. An original
        /// transaction id is looked up in `apps`.
        func key(apps: (String) throws -> [String]) rethrows -> EntitlementLookup.Key? {
            switch (userId, appAccountToken, originalTransactionId) {
            case (let user?, nil, nil) where !user.isEmpty: .user(user)
            case (nil, let token?, nil) where !token.isEmpty: .appAccountToken(token)
            case (nil, nil, let id?) where !id.isEmpty: .originalTransactionId(id, bundleIds: try apps(id))
            default: nil
            }
        }
    }

    public typealias Response = EntitlementLookup.Answer

    public static let descriptor = FunctionDescriptor(
        name: "get-entitlements",
        route: "/entitlements",
        method: "GET",
        visibility: .internal,
        summary: "Answer a user's entitlements and whether paid features are on now.",
        request: """
            one of: {"userId": "..."} | {"appAccountToken": "<uuid>"} | {"originalTransactionId": "..."}
            over HTTP: GET /entitlements?userId=...
            """,
        response: """
            {"userId": "...", "active": true, "entitlements": [{"originalTransactionId", "productId",
              "productType", "status": "active" | "grace" | "billing_retry" | "expired" | "refunded" |
              "revoked" | "lifetime", "active", "expiresDate", "gracePeriodExpiresDate", "autoRenew",
              "autoRenewProductId", "environment", "ownership", "appAccountToken", "latestTransactionId",
              "lastEvent": {"id", "source", "type", "subtype", "signedDate"}, "revokedTransactionIds",
              "confirmedByApple": {"appleStatus", "status", "askedAt"} (when reconcile asked Apple in the last 8 h)}]}
            Dates are Apple's milliseconds since 1970. An unknown user has no entitlements (not an error).
            """,
        variables: [.declared(RuntimeSettings.storeURL)] + AppStoreSettings.catalogVariables.map {
            SettingUse(declaration: $0.declaration, requirement: .optional,
                       note: "optional here: with a catalog, non-renewing subscriptions end after durationDays and sandboxGrants applies")
        }
    )

    private let context: FunctionContext
    /// nil when no catalog is configured: each record answers alone, as it always did.
    private let catalog: Catalog?

    public init(context: FunctionContext) throws {
        self.context = context
        // The catalog file, or the app variable that describes one app; neither: no catalog.
        let configured = [StorekeeperSettings.catalog.name, StorekeeperSettings.bundleId.name]
        catalog = configured.contains { context.environment.optional($0) != nil }
            ? try StorekeeperSettings.catalog(in: context.environment) : nil
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let repository = EntitlementRepository(store: try context.adapters.store())
        guard let key = try request.key(apps: { try repository.apps(holding: $0) }) else {
            throw FunctionError.badInput(code: .invalidRequest,
                message: "give exactly one of userId, appAccountToken, originalTransactionId")
        }
        let lookup = EntitlementLookup(repository: repository)
        return Reply(try lookup.entitlements(of: key, now: context.clock.now(), catalog: catalog))
    }
}
