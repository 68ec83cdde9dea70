import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `get-entitlements`: what a user may use now. By user id, appAccountToken or original
/// transaction id; answers every entitlement with one boolean, `active`, per entitlement and
/// for the user as a whole.
public final class GetEntitlementsFunction: FunctionHandler {
    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case userId, appAccountToken, originalTransactionId
        }
        var userId: String?
        var appAccountToken: String?
        var originalTransactionId: String?
    }

    struct Response: Encodable {
        var userId: String?
        var active: Bool
        var entitlements: [Entitlement]
    }

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
        variables: [
            EnvironmentVariableHelp(name: StoreLocation.variable, required: false,
                meaning: "where state lives: sqlite:<path> (default sqlite:var/storekeeper.db) or redis://..."),
        ]
    )

    private let context: FunctionContext

    public init(context: FunctionContext) throws {
        self.context = context
    }

    public func handle(_ request: FunctionRequest) throws -> FunctionResponse {
        let body = try request.decode(Request.self)
        let given = [body.userId, body.appAccountToken, body.originalTransactionId].compactMap { $0 }
        guard given.count == 1, let key = given.first, !key.isEmpty else {
            throw FunctionError.badInput(code: .invalidRequest,
                message: "give exactly one of userId, appAccountToken, originalTransactionId")
        }
        let repository = EntitlementRepository(store: try context.adapters.store())
        var userId = body.userId
        var ids: [String]
        if let user = body.userId {
            ids = try repository.originalTransactionIds(ofUser: user)
        } else if let token = body.appAccountToken {
            ids = try repository.originalTransactionIds(ofAppAccountToken: token)
            userId = try repository.user(ofAppAccountToken: token)
            if let userId { ids += try repository.originalTransactionIds(ofUser: userId) }
        } else {
            ids = [key]
        }
        let entitlements = try repository.entitlements(of: ids, now: context.clock.now())
        return try .json(Response(userId: userId, active: entitlements.contains { $0.active }, entitlements: entitlements))
    }
}
