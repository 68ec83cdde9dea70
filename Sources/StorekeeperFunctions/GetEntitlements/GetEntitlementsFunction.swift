import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `get-entitlements`: what a user may use now. By user id, appAccountToken or original
/// transaction id; answers every entitlement with one boolean, `active`, per entitlement and
/// for the user as a whole.
public final class GetEntitlementsFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case userId, appAccountToken, originalTransactionId, bundleId
        }
        /// Only this app's subscriptions (every app's without it).
        var bundleId: String?
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
            one of: {"userId": "..."} | {"appAccountToken": "<uuid>"} | {"originalTransactionId": "..."},
            and optionally "bundleId": only that app's subscriptions (with STOREKEEPER_CATALOG, one of its
            apps: invalid_request otherwise)
            over HTTP: GET /entitlements?userId=...&bundleId=...
            """,
        response: """
            {"userId": "...", "active": true, "entitlements": [{"bundleId", "originalTransactionId", "productId",
              "productType", "status": "active" | "grace" | "billing_retry" | "expired" | "refunded" |
              "revoked" | "lifetime", "active", "expiresDate", "gracePeriodExpiresDate", "autoRenew",
              "autoRenewProductId", "environment", "ownership", "appAccountToken", "latestTransactionId",
              "lastEvent": {"id", "source", "type", "subtype", "signedDate"}, "revokedTransactionIds",
              "confirmedByApple": {"appleStatus", "status", "askedAt"} (when reconcile asked Apple in the last 8 h)}]}
            Dates are Apple's milliseconds since 1970. An unknown user has no entitlements (not an error).
            With STOREKEEPER_CATALOG, a sandbox purchase of an app whose sandboxGrants is false is listed
            (its environment says Sandbox) but not active.
            """,
        variables: [
            .declared(StorekeeperSettings.catalog, "its apps' sandboxGrants; bundleId must name one of them"),
            .declared(RuntimeSettings.storeURL),
            .optional(StorekeeperSettings.bundleId, "without a catalog, the app an originalTransactionId is looked up in"),
        ],
        scope: .read
    )

    private let context: FunctionContext
    /// nil when no catalog is configured: each record answers alone, as it always did.
    private let catalog: Catalog?
    /// The apps an original transaction id is looked up in: the catalog's, else the one
    /// APPSTORE_BUNDLE_ID names; nil when neither is set (then the index is walked).
    private let apps: [String]?

    public init(context: FunctionContext) throws {
        self.context = context
        catalog = try StorekeeperSettings.catalogIfConfigured(in: context.environment)
        let configured = try context.environment.value(StorekeeperSettings.bundleId)
        apps = catalog.map { $0.apps.map(\.bundleId) } ?? configured.map { [$0] }
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        if let bundleId = request.bundleId {
            guard !bundleId.isEmpty else { throw FunctionError.badInput(message: "bundleId must not be empty") }
            if let catalog { _ = try catalog.app(requested: bundleId) }
        }
        let repository = EntitlementRepository(store: try context.adapters.store())
        guard let key = try request.key(apps: { try apps(holding: $0, bundleId: request.bundleId, repository) }) else {
            throw FunctionError.badInput(code: .invalidRequest,
                message: "give exactly one of userId, appAccountToken, originalTransactionId")
        }
        let lookup = EntitlementLookup(repository: repository)
        let answer = try lookup.entitlements(of: key, now: context.clock.now(), catalog: catalog).only(bundleId: request.bundleId)
        return Reply(answer)
    }

    /// Where an original transaction id is looked up: in the app named, else in the
    /// configured apps, else (a store-only deployment) in every app the index holds it for.
    private func apps(holding id: String, bundleId: String?, _ repository: EntitlementRepository) throws -> [String] {
        if let bundleId { return [bundleId] }
        if let apps { return apps }
        return try repository.apps(holding: id)
    }
}
