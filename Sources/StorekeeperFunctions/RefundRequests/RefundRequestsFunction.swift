import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `refund-requests`: the operator's view of refund requests for one app in one environment:
/// open requests and their deadlines, the answers sent and what they said, Apple's outcomes,
/// and the refund rate by the customer's reason. Reads the app's index, never the whole store.
public final class RefundRequestsFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case bundleId, environment, limit
        }
        var bundleId: String?
        var environment: String?
        /// A number, or its digits (a query parameter).
        var limit: String?

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
            environment = try container.decodeIfPresent(String.self, forKey: .environment)
            if let number = try? container.decodeIfPresent(Int64.self, forKey: .limit) {
                limit = String(number)
            } else if let text = try? container.decodeIfPresent(String.self, forKey: .limit) {
                limit = text
            } else if container.contains(.limit), try !container.decodeNil(forKey: .limit) {
                limit = "not a number"
            }
        }
    }

    public typealias Response = RefundRequestsReport

    static let defaultLimit = 100
    static let maximumLimit = 1_000

    public static let descriptor = FunctionDescriptor(
        name: "refund-requests",
        route: "/appstore/refund-requests",
        method: "GET",
        visibility: .internal,
        summary: "Refund requests of one app and environment: open ones with their deadline, answers sent, Apple's outcomes, the refund rate by reason.",
        request: """
            {"bundleId": "<optional: one of the catalog's apps>", "environment": "Production" (default) | "Sandbox" | "Xcode" |
             "LocalTesting", "limit": 100 (the newest requests read, 1 to 1000)}
            over HTTP: GET /appstore/refund-requests?environment=Sandbox&limit=500
            """,
        response: """
            {"bundleId", "environment", "recorded": N (requests ever recorded), "examined": N (the newest, at most limit),
             "open": [request] soonest deadline first, "answered": [request], "notAnswered": [request], "closed": [request],
             "byReason": {"<consumptionRequestReason>" | "none": {"requests", "answered", "refunded", "declined",
               "refundRate": refunded / (refunded + declined) or null}}}
            a request: {"bundleId", "environment", "transactionId", "originalTransactionId", "productId", "productType",
             "inAppOwnershipType", "purchaseDate", "consumptionRequestReason", "notificationUUID", "signedDate", "receivedAt",
             "deadline" (signedDate + 12 h), "requests", "state": open | answered | not_answered | closed, "waitingFor",
             "notAnsweredReason", "attempts", "nextAttemptAt", "lastAttemptAt", "lastError": {"code", "errorCode", "httpStatus"},
             "sent": <the Send Consumption Information body, exactly>, "answeredAt", "outcome": refunded | declined,
             "closedAt", "outcomeNotificationUUID"} (fields without a value left out)
            invalid_request: 400, exit 65; the store failing: 503, exit 75.
            """,
        variables: AppStoreSettings.catalogVariables + [.declared(RuntimeSettings.storeURL)],
        scope: .read
    )

    private let context: FunctionContext
    private let catalog: Catalog

    public init(context: FunctionContext) throws {
        self.context = context
        catalog = try StorekeeperSettings.catalog(in: context.environment)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let app = try catalog.app(requested: request.bundleId)
        let environment = request.environment ?? Environment.production.rawValue
        guard Environment(rawValue: environment) != nil else {
            throw FunctionError.badInput(message: "environment must be one of Production, Sandbox, Xcode, LocalTesting")
        }
        var limit = Self.defaultLimit
        if let text = request.limit {
            guard text.utf8.count <= 6, text.utf8.allSatisfy({ (48...57).contains($0) }), let number = Int(text),
                  (1...Self.maximumLimit).contains(number) else {
                throw FunctionError.badInput(message: "limit must be a whole number from 1 to \(Self.maximumLimit)")
            }
            limit = number
        }
        let (requests, recorded) = try RefundRequestRepository(store: try context.adapters.store())
            .newest(bundleId: app.bundleId, environment: environment, limit: limit)
        return Reply(RefundRequestsReport(bundleId: app.bundleId, environment: environment, recorded: recorded, requests: requests))
    }
}
