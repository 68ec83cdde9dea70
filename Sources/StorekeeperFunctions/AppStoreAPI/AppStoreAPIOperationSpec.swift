import FunctionRuntime
import StorekeeperCore

/// One operation `app-store-api` accepts: Apple's method name, the identifiers it needs, the
/// query parameters and body fields it takes, how it pages, and how its typed operation is
/// built. Adding an operation is adding one entry to `all`.
struct AppStoreAPIOperationSpec {
    enum Paging {
        case none
        /// `revision` + `hasMore`; the array that grows is `items`.
        case revision(items: String)
        /// `paginationToken` + `hasMore`.
        case paginationToken(items: String)
    }

    let name: String
    let identifiers: [String]
    let query: [String]
    let body: [String]
    /// Body fields Apple requires.
    let requiredBody: [String]
    let paging: Paging
    /// Looked up by transaction id: production "not found" may be asked of the sandbox.
    let lookup: Bool
    /// Reads the checked parameters into the operation's types (throwing `invalid_request` for
    /// a bad one) and answers the builder of one operation per page.
    let makeOperation: @Sendable (AppStoreAPICall.Parameters) throws -> AppStoreAPICall.Build
    /// Takes the request's `image` (base64 PNG) as its body instead of JSON.
    let takesImage: Bool

    init(_ name: String, identifiers: [String] = [], query: [String] = [], body: [String] = [],
         requiredBody: [String] = [], paging: Paging = .none, lookup: Bool = false, takesImage: Bool = false,
         makeOperation: @escaping @Sendable (AppStoreAPICall.Parameters) throws -> AppStoreAPICall.Build) {
        self.takesImage = takesImage
        self.name = name
        self.identifiers = identifiers
        self.query = query
        self.body = body
        self.requiredBody = requiredBody
        self.paging = paging
        self.lookup = lookup
        self.makeOperation = makeOperation
    }

    static let all: [AppStoreAPIOperationSpec] = serverAPI + retentionMessaging

    /// The App Store Server API's operations (the Retention Messaging API's are beside).
    static let serverAPI: [AppStoreAPIOperationSpec] = [
        .init("getTransactionInfo", identifiers: ["transactionId"], lookup: true) { parameters in
            let transactionId = parameters.identifier("transactionId")
            return { _ in .getTransactionInfo(transactionId: transactionId) }
        },
        .init("getTransactionHistory", identifiers: ["transactionId"],
              query: ["revision", "startDate", "endDate", "productId", "productType", "sort",
                      "subscriptionGroupIdentifier", "inAppOwnershipType", "revoked"],
              paging: .revision(items: "signedTransactions"), lookup: true) { parameters in
            let transactionId = parameters.identifier("transactionId")
            let request = TransactionHistoryRequest(
                startDate: try parameters.milliseconds("startDate"),
                endDate: try parameters.milliseconds("endDate"),
                productIds: try parameters.strings("productId"),
                productTypes: try parameters.strings("productType"),
                sort: try parameters.strings("sort")?.first,
                subscriptionGroupIdentifiers: try parameters.strings("subscriptionGroupIdentifier"),
                inAppOwnershipType: try parameters.strings("inAppOwnershipType")?.first,
                revoked: try parameters.bool("revoked"))
            return { revision in .getTransactionHistory(transactionId: transactionId, revision: revision, request: request) }
        },
        .init("getAllSubscriptionStatuses", identifiers: ["transactionId"], query: ["status"], lookup: true) { parameters in
            let transactionId = parameters.identifier("transactionId")
            let status = try parameters.strings("status")?.map { text throws -> Int32 in
                guard let value = Int32(text) else { throw FunctionError.badInput(message: "query.status must be numbers 1 to 5") }
                return value
            }
            return { _ in .getAllSubscriptionStatuses(transactionId: transactionId, status: status) }
        },
        .init("getRefundHistory", identifiers: ["transactionId"], query: ["revision"],
              paging: .revision(items: "signedTransactions"), lookup: true) { parameters in
            let transactionId = parameters.identifier("transactionId")
            return { revision in .getRefundHistory(transactionId: transactionId, revision: revision) }
        },
        .init("getAppTransactionInfo", identifiers: ["transactionId"], lookup: true) { parameters in
            let transactionId = parameters.identifier("transactionId")
            return { _ in .getAppTransactionInfo(transactionId: transactionId) }
        },
        .init("getNotificationHistory", query: ["paginationToken"],
              body: ["startDate", "endDate", "notificationType", "notificationSubtype", "transactionId", "onlyFailures"],
              requiredBody: ["startDate", "endDate"], paging: .paginationToken(items: "notificationHistory")) { parameters in
            let request: NotificationHistoryRequest = try parameters.decodeBody()
            return { token throws(AppStoreAPIError) in try .getNotificationHistory(paginationToken: token, request: request) }
        },
        .init("requestTestNotification") { _ in
            { _ in .requestTestNotification() }
        },
        .init("getTestNotificationStatus", identifiers: ["testNotificationToken"]) { parameters in
            let token = parameters.identifier("testNotificationToken")
            return { _ in .getTestNotificationStatus(testNotificationToken: token) }
        },
        .init("lookUpOrderId", identifiers: ["orderId"]) { parameters in
            let orderId = parameters.identifier("orderId")
            return { _ in .lookUpOrderId(orderId: orderId) }
        },
        .init("extendSubscriptionRenewalDate", identifiers: ["originalTransactionId"],
              body: ["extendByDays", "extendReasonCode", "requestIdentifier"],
              requiredBody: ["extendByDays", "extendReasonCode", "requestIdentifier"]) { parameters in
            let originalTransactionId = parameters.identifier("originalTransactionId")
            let request: ExtendRenewalDateRequest = try parameters.decodeBody()
            return { _ throws(AppStoreAPIError) in
                try .extendSubscriptionRenewalDate(originalTransactionId: originalTransactionId, request: request)
            }
        },
        .init("extendRenewalDateForAllActiveSubscribers",
              body: ["extendByDays", "extendReasonCode", "requestIdentifier", "storefrontCountryCodes", "productId"],
              requiredBody: ["extendByDays", "extendReasonCode", "requestIdentifier", "productId"]) { parameters in
            let request: MassExtendRenewalDateRequest = try parameters.decodeBody()
            return { _ throws(AppStoreAPIError) in try .extendRenewalDateForAllActiveSubscribers(request: request) }
        },
        .init("getStatusOfSubscriptionRenewalDateExtensions", identifiers: ["productId", "requestIdentifier"]) { parameters in
            let requestIdentifier = parameters.identifier("requestIdentifier")
            let productId = parameters.identifier("productId")
            return { _ in .getStatusOfSubscriptionRenewalDateExtensions(requestIdentifier: requestIdentifier, productId: productId) }
        },
        .init("sendConsumptionInformation", identifiers: ["transactionId"],
              body: ["customerConsented", "deliveryStatus", "sampleContentProvided", "consumptionPercentage", "refundPreference"],
              requiredBody: ["customerConsented", "deliveryStatus", "sampleContentProvided"]) { parameters in
            let transactionId = parameters.identifier("transactionId")
            let request: ConsumptionRequest = try parameters.decodeBody()
            return { _ throws(AppStoreAPIError) in try .sendConsumptionInformation(transactionId: transactionId, request: request) }
        },
        .init("setAppAccountToken", identifiers: ["originalTransactionId"], body: ["appAccountToken"],
              requiredBody: ["appAccountToken"]) { parameters in
            let originalTransactionId = parameters.identifier("originalTransactionId")
            let request: UpdateAppAccountTokenRequest = try parameters.decodeBody()
            return { _ throws(AppStoreAPIError) in try .setAppAccountToken(originalTransactionId: originalTransactionId, request: request) }
        },
    ]

    static func named(_ name: String) -> AppStoreAPIOperationSpec? { all.first { $0.name == name } }
}
