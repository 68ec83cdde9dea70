import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `get-customer`: one customer, found by any id Apple or the app knows them by: their
/// entitlements by name (from the catalog), every purchase with its facts, and the timeline.
public final class GetCustomerFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case userId, appAccountToken, originalTransactionId, transactionId, appTransactionId, bundleId, historyLimit
        }
        var key: CustomerLookup.Key?
        var bundleId: String?
        var historyLimit: Int

        /// Exactly one non-empty key; `historyLimit` a positive number (a string of digits
        /// over HTTP GET, where every parameter is a string).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let keys: [(CodingKeys, (String) -> CustomerLookup.Key)] = [
                (.userId, CustomerLookup.Key.user), (.appAccountToken, CustomerLookup.Key.appAccountToken),
                (.originalTransactionId, CustomerLookup.Key.originalTransactionId),
                (.transactionId, CustomerLookup.Key.transactionId), (.appTransactionId, CustomerLookup.Key.appTransactionId),
            ]
            let given = try keys.compactMap { field, key in try container.decodeIfPresent(String.self, forKey: field).map(key) }
            key = given.count == 1 && given.allSatisfy { !$0.id.isEmpty } ? given[0] : nil
            bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
            historyLimit = try Self.historyLimit(in: container) ?? CustomerAnswer.defaultHistoryLimit
        }

        private static func historyLimit(in container: KeyedDecodingContainer<CodingKeys>) throws -> Int? {
            if let number = try? container.decodeIfPresent(Int.self, forKey: .historyLimit) { return number }
            guard let text = try container.decodeIfPresent(String.self, forKey: .historyLimit) else { return nil }
            return Int(text) ?? -1
        }
    }

    public struct Response: Encodable, Sendable {
        public var customer: CustomerAnswer
    }

    /// More than this many timeline entries is a request for an export, not an answer.
    static let maximumHistoryLimit = 10_000

    public static let descriptor = FunctionDescriptor(
        name: "get-customer",
        route: "/customers",
        method: "GET",
        visibility: .internal,
        summary: "Answer one customer: entitlements by name, every purchase and its facts, the timeline.",
        request: """
            exactly one of: {"userId"} | {"appAccountToken"} | {"originalTransactionId"} | {"transactionId"} |
              {"appTransactionId"}; optional "bundleId" (only that app's purchases and grants) and
              "historyLimit" (timeline entries, newest kept; default 100, at most 10000)
            over HTTP: GET /customers?userId=...&historyLimit=500
            """,
        response: """
            {"customer": {"userId" (null when no user is linked), "appAccountTokens": [...],
              "entitlements": {"<name>": {"active", "productId", "expiresDate", "purchaseDate",
                "periodType": "normal" | "trial" | "intro" | "promotional" | "offer_code" | "win_back",
                "willRenew", "unsubscribeDetectedAt", "billingIssueDetectedAt", "gracePeriodExpiresDate",
                "expirationReason", "isFamilyShare", "environment", "grantedBy": "purchase" | "grant",
                "durationUnknown": true (only for a non-renewing product without durationDays), "grantId" (grants)}},
              "subscriptions": {"<productId>": {"originalTransactionId", "bundleId", "status", "active", "entitlements",
                "expiresDate", "periodType", "willRenew", ..., "priceUnit": "milliunits", "transactions": [every
                kept period as stored], "renewal", "lastEvent", "confirmedByApple"}},
              "nonSubscriptions": [{"productId", "transactionId", "purchaseDate", "type", "revocationDate",
                "expiresDate", "durationUnknown", "status", "active", "price", "currency", "priceUnit", ...}],
              "history": [{"id", "date", "type", "subtype", "productId", "transactionId", "source", ...}] oldest first}}
            An entitlement is active when any product or grant giving it is; the one described decides
            (the latest expiry). Dates are milliseconds since 1970; prices Apple's integers (milliunits).
            Nothing matches: customer_not_found, HTTP 404, exit 65.
            """,
        variables: CustomerAnswering.variables
    )

    private let context: FunctionContext
    private let answering: CustomerAnswering

    public init(context: FunctionContext) throws {
        self.context = context
        answering = try CustomerAnswering(environment: context.environment)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        guard let key = request.key else {
            throw FunctionError.badInput(message:
                "give exactly one of userId, appAccountToken, originalTransactionId, transactionId, appTransactionId")
        }
        guard (1...Self.maximumHistoryLimit).contains(request.historyLimit) else {
            throw FunctionError.badInput(message: "historyLimit must be a whole number from 1 to \(Self.maximumHistoryLimit)")
        }
        if let bundleId = request.bundleId, answering.catalog.app(bundleId: bundleId) == nil {
            throw FunctionError.badInput(message: "bundleId names no app of this deployment")
        }
        guard let answer = try answering.answer(key, bundleId: request.bundleId, historyLimit: request.historyLimit,
                                                store: try context.adapters.store(), now: context.clock.now()) else {
            throw FunctionError(.customerNotFound, "no customer has this \(key.field)")
        }
        return Reply(Response(customer: answer))
    }
}

extension CustomerLookup.Key {
    /// The id given, whichever kind.
    var id: String {
        switch self {
        case .user(let id), .appAccountToken(let id), .originalTransactionId(let id), .transactionId(let id),
             .appTransactionId(let id): id
        }
    }

    /// The request field it came from, for the error message (never the id itself).
    var field: String {
        switch self {
        case .user: "userId"
        case .appAccountToken: "appAccountToken"
        case .originalTransactionId: "originalTransactionId"
        case .transactionId: "transactionId"
        case .appTransactionId: "appTransactionId"
        }
    }
}
