import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// One `app-store-api` request turned into App Store Server API operations: the parameters
/// checked and typed once, then one operation per page, and the pages merged into one answer.
struct AppStoreAPICall {
    let spec: AppStoreAPIOperationSpec
    private let build: (String?) throws(AppStoreAPIError) -> AppStoreAPIOperation
    /// The revision or pagination token the caller started from.
    let initialCursor: String?

    init(spec: AppStoreAPIOperationSpec, identifiers: [String: String], query: [String: JSONValue],
         body: [String: JSONValue]) throws {
        self.spec = spec
        let id = { (name: String) in identifiers[name] ?? "" }
        switch spec.name {
        case "getTransactionInfo":
            let transactionId = id("transactionId")
            build = { _ in .getTransactionInfo(transactionId: transactionId) }
            initialCursor = nil
        case "getTransactionHistory":
            let transactionId = id("transactionId")
            let request = TransactionHistoryRequest(
                startDate: try Self.milliseconds(query["startDate"], "startDate"),
                endDate: try Self.milliseconds(query["endDate"], "endDate"),
                productIds: try Self.strings(query["productId"], "productId"),
                productTypes: try Self.strings(query["productType"], "productType"),
                sort: try Self.strings(query["sort"], "sort")?.first,
                subscriptionGroupIdentifiers: try Self.strings(query["subscriptionGroupIdentifier"], "subscriptionGroupIdentifier"),
                inAppOwnershipType: try Self.strings(query["inAppOwnershipType"], "inAppOwnershipType")?.first,
                revoked: try Self.bool(query["revoked"], "revoked"))
            build = { revision in .getTransactionHistory(transactionId: transactionId, revision: revision, request: request) }
            initialCursor = try Self.strings(query["revision"], "revision")?.first
        case "getAllSubscriptionStatuses":
            let transactionId = id("transactionId")
            let status = try Self.strings(query["status"], "status")?.map { text throws -> Int32 in
                guard let value = Int32(text) else { throw FunctionError.badInput(message: "query.status must be numbers 1 to 5") }
                return value
            }
            build = { _ in .getAllSubscriptionStatuses(transactionId: transactionId, status: status) }
            initialCursor = nil
        case "getRefundHistory":
            let transactionId = id("transactionId")
            build = { revision in .getRefundHistory(transactionId: transactionId, revision: revision) }
            initialCursor = try Self.strings(query["revision"], "revision")?.first
        case "getAppTransactionInfo":
            let transactionId = id("transactionId")
            build = { _ in .getAppTransactionInfo(transactionId: transactionId) }
            initialCursor = nil
        case "getNotificationHistory":
            let request: NotificationHistoryRequest = try Self.decodeBody(body)
            build = { token throws(AppStoreAPIError) in try .getNotificationHistory(paginationToken: token, request: request) }
            initialCursor = try Self.strings(query["paginationToken"], "paginationToken")?.first
        case "requestTestNotification":
            build = { _ in .requestTestNotification() }
            initialCursor = nil
        case "getTestNotificationStatus":
            let token = id("testNotificationToken")
            build = { _ in .getTestNotificationStatus(testNotificationToken: token) }
            initialCursor = nil
        case "lookUpOrderId":
            let orderId = id("orderId")
            build = { _ in .lookUpOrderId(orderId: orderId) }
            initialCursor = nil
        case "extendSubscriptionRenewalDate":
            let originalTransactionId = id("originalTransactionId")
            let request: ExtendRenewalDateRequest = try Self.decodeBody(body)
            build = { _ throws(AppStoreAPIError) in try .extendSubscriptionRenewalDate(originalTransactionId: originalTransactionId, request: request) }
            initialCursor = nil
        case "extendRenewalDateForAllActiveSubscribers":
            let request: MassExtendRenewalDateRequest = try Self.decodeBody(body)
            build = { _ throws(AppStoreAPIError) in try .extendRenewalDateForAllActiveSubscribers(request: request) }
            initialCursor = nil
        case "getStatusOfSubscriptionRenewalDateExtensions":
            let requestIdentifier = id("requestIdentifier")
            let productId = id("productId")
            build = { _ in .getStatusOfSubscriptionRenewalDateExtensions(requestIdentifier: requestIdentifier, productId: productId) }
            initialCursor = nil
        case "sendConsumptionInformation":
            let transactionId = id("transactionId")
            let request: ConsumptionRequest = try Self.decodeBody(body)
            build = { _ throws(AppStoreAPIError) in try .sendConsumptionInformation(transactionId: transactionId, request: request) }
            initialCursor = nil
        case "setAppAccountToken":
            let originalTransactionId = id("originalTransactionId")
            let request: UpdateAppAccountTokenRequest = try Self.decodeBody(body)
            build = { _ throws(AppStoreAPIError) in try .setAppAccountToken(originalTransactionId: originalTransactionId, request: request) }
            initialCursor = nil
        default:
            throw FunctionError.badInput(code: "unknown_operation", message: "unknown operation \(spec.name)")
        }
    }

    func operation(cursor: String?) throws(AppStoreAPIError) -> AppStoreAPIOperation {
        try build(cursor)
    }

    /// The cursor for the next page, or nil when this was the last one.
    func nextCursor(_ page: [UInt8]) throws -> String? {
        let value = try Self.parse(page)
        guard value["hasMore"] == .bool(true) else { return nil }
        switch spec.paging {
        case .none: return nil
        case .revision: return value["revision"]?.stringValue
        case .paginationToken: return value["paginationToken"]?.stringValue
        }
    }

    /// One answer: the last page's fields, with the pages' items concatenated in order.
    func merge(_ pages: [[UInt8]]) throws -> JSONValue {
        guard let last = pages.last else { return .object([:]) }
        if last.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .object([:]) }
        let items: String
        switch spec.paging {
        case .none: return try Self.parse(last)
        case .revision(let name), .paginationToken(let name): items = name
        }
        guard pages.count > 1, case .object(var merged) = try Self.parse(last) else { return try Self.parse(last) }
        var all: [JSONValue] = []
        for page in pages {
            if case .array(let some)? = try Self.parse(page)[items] { all += some }
        }
        merged[items] = .array(all)
        return .object(merged)
    }

    private static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw AppStoreAPIError(kind: .invalidResponse, code: "InvalidResponse",
                                   reason: "Apple's answer is not JSON", isRetryable: false, httpStatus: 200)
        }
    }

    // MARK: Parameters

    private static func strings(_ value: JSONValue?, _ name: String) throws -> [String]? {
        guard let value else { return nil }
        func one(_ item: JSONValue) throws -> String {
            switch item {
            case .string(let text): return text
            case .number(let number) where number.rounded() == number && abs(number) < 9_007_199_254_740_992:
                return String(Int64(number))
            case .bool(let flag): return flag ? "true" : "false"
            default: throw FunctionError.badInput(message: "query.\(name) must be a string, a number or a list of them")
            }
        }
        if case .array(let items) = value { return try items.map(one) }
        return [try one(value)]
    }

    private static func milliseconds(_ value: JSONValue?, _ name: String) throws -> Int64? {
        guard let text = try strings(value, name) else { return nil }
        guard text.count == 1, let milliseconds = Int64(text[0]), milliseconds >= 0 else {
            throw FunctionError.badInput(message: "query.\(name) must be milliseconds since 1970")
        }
        return milliseconds
    }

    private static func bool(_ value: JSONValue?, _ name: String) throws -> Bool? {
        guard let text = try strings(value, name) else { return nil }
        switch text {
        case ["true"]: return true
        case ["false"]: return false
        default: throw FunctionError.badInput(message: "query.\(name) must be true or false")
        }
    }

    private static func decodeBody<T: Decodable>(_ body: [String: JSONValue]) throws -> T {
        do {
            let bytes = try JSONEncoder().encode(body)
            return try JSONDecoder().decode(T.self, from: bytes)
        } catch let error as DecodingError {
            var path = ""
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
                path = context.codingPath.map(\.stringValue).joined(separator: ".")
            @unknown default: break
            }
            throw FunctionError.badInput(message: "body\(path.isEmpty ? "" : ".\(path)") has the wrong type")
        }
    }
}
