import FoundationEssentials

/// Every endpoint's method, path, query and body, in one place: the client's typed methods
/// and the `app-store-api` function both build their requests here.
extension AppStoreAPIOperation {
    /// One path segment: RFC 3986 unreserved characters as they are, every other byte `%XX`
    /// (so a `/` in an identifier cannot reach another endpoint).
    private static func id(_ value: String) -> String { PercentEncoding.encode(value) }

    public static func getTransactionInfo(transactionId: String) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "getTransactionInfo", method: "GET",
                             path: "/inApps/v1/transactions/" + id(transactionId), isLookupByTransactionId: true)
    }

    public static func getTransactionHistory(transactionId: String, revision: String?,
                                             request: TransactionHistoryRequest) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "getTransactionHistory", method: "GET",
                             path: "/inApps/v2/history/" + id(transactionId),
                             query: (revision.map { [("revision", $0)] } ?? []) + request.queryItems,
                             isLookupByTransactionId: true)
    }

    public static func getAllSubscriptionStatuses(transactionId: String, status: [Int32]?) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "getAllSubscriptionStatuses", method: "GET",
                             path: "/inApps/v1/subscriptions/" + id(transactionId),
                             query: (status ?? []).map { ("status", String($0)) }, isLookupByTransactionId: true)
    }

    public static func getRefundHistory(transactionId: String, revision: String?) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "getRefundHistory", method: "GET",
                             path: "/inApps/v2/refund/lookup/" + id(transactionId),
                             query: revision.map { [("revision", $0)] } ?? [], isLookupByTransactionId: true)
    }

    public static func getAppTransactionInfo(transactionId: String) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "getAppTransactionInfo", method: "GET",
                             path: "/inApps/v1/transactions/appTransactions/" + id(transactionId),
                             isLookupByTransactionId: true)
    }

    public static func getNotificationHistory(paginationToken: String?,
                                              request: NotificationHistoryRequest) throws(AppStoreAPIError) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "getNotificationHistory", method: "POST", path: "/inApps/v1/notifications/history",
                             query: paginationToken.map { [("paginationToken", $0)] } ?? [], body: try jsonBody(request))
    }

    public static func requestTestNotification() -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "requestTestNotification", method: "POST", path: "/inApps/v1/notifications/test")
    }

    public static func getTestNotificationStatus(testNotificationToken: String) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "getTestNotificationStatus", method: "GET",
                             path: "/inApps/v1/notifications/test/" + id(testNotificationToken))
    }

    public static func lookUpOrderId(orderId: String) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "lookUpOrderId", method: "GET", path: "/inApps/v1/lookup/" + id(orderId))
    }

    public static func extendSubscriptionRenewalDate(originalTransactionId: String,
                                                     request: ExtendRenewalDateRequest) throws(AppStoreAPIError) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "extendSubscriptionRenewalDate", method: "PUT",
                             path: "/inApps/v1/subscriptions/extend/" + id(originalTransactionId), body: try jsonBody(request))
    }

    public static func extendRenewalDateForAllActiveSubscribers(request: MassExtendRenewalDateRequest) throws(AppStoreAPIError) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "extendRenewalDateForAllActiveSubscribers", method: "POST",
                             path: "/inApps/v1/subscriptions/extend/mass", body: try jsonBody(request))
    }

    public static func getStatusOfSubscriptionRenewalDateExtensions(requestIdentifier: String, productId: String) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "getStatusOfSubscriptionRenewalDateExtensions", method: "GET",
                             path: "/inApps/v1/subscriptions/extend/mass/" + id(productId) + "/" + id(requestIdentifier))
    }

    /// Send Consumption Information, v2 (`PUT /inApps/v2/transactions/consumption/{id}`, 202).
    public static func sendConsumptionInformation(transactionId: String,
                                                  request: ConsumptionRequest) throws(AppStoreAPIError) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "sendConsumptionInformation", method: "PUT",
                             path: "/inApps/v2/transactions/consumption/" + id(transactionId), body: try jsonBody(request))
    }

    public static func setAppAccountToken(originalTransactionId: String,
                                          request: UpdateAppAccountTokenRequest) throws(AppStoreAPIError) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "setAppAccountToken", method: "PUT",
                             path: "/inApps/v1/transactions/" + id(originalTransactionId) + "/appAccountToken",
                             body: try jsonBody(request))
    }

    static func jsonBody(_ value: some Encodable) throws(AppStoreAPIError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(value))
        } catch {
            throw AppStoreAPIError(.invalidRequest, kind: .invalidRequest,
                                   reason: "the request body cannot be encoded: \(error)")
        }
    }
}
