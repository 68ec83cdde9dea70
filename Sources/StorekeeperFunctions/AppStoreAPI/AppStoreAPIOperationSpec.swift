/// One operation `app-store-api` accepts: Apple's method name, the identifiers it needs, the
/// query parameters and body fields it takes, and how it pages.
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

    init(_ name: String, identifiers: [String] = [], query: [String] = [], body: [String] = [],
         requiredBody: [String] = [], paging: Paging = .none, lookup: Bool = false) {
        self.name = name
        self.identifiers = identifiers
        self.query = query
        self.body = body
        self.requiredBody = requiredBody
        self.paging = paging
        self.lookup = lookup
    }

    static let all: [AppStoreAPIOperationSpec] = [
        .init("getTransactionInfo", identifiers: ["transactionId"], lookup: true),
        .init("getTransactionHistory", identifiers: ["transactionId"],
              query: ["revision", "startDate", "endDate", "productId", "productType", "sort",
                      "subscriptionGroupIdentifier", "inAppOwnershipType", "revoked"],
              paging: .revision(items: "signedTransactions"), lookup: true),
        .init("getAllSubscriptionStatuses", identifiers: ["transactionId"], query: ["status"], lookup: true),
        .init("getRefundHistory", identifiers: ["transactionId"], query: ["revision"],
              paging: .revision(items: "signedTransactions"), lookup: true),
        .init("getAppTransactionInfo", identifiers: ["transactionId"], lookup: true),
        .init("getNotificationHistory", query: ["paginationToken"],
              body: ["startDate", "endDate", "notificationType", "notificationSubtype", "transactionId", "onlyFailures"],
              requiredBody: ["startDate", "endDate"], paging: .paginationToken(items: "notificationHistory")),
        .init("requestTestNotification"),
        .init("getTestNotificationStatus", identifiers: ["testNotificationToken"]),
        .init("lookUpOrderId", identifiers: ["orderId"]),
        .init("extendSubscriptionRenewalDate", identifiers: ["originalTransactionId"],
              body: ["extendByDays", "extendReasonCode", "requestIdentifier"],
              requiredBody: ["extendByDays", "extendReasonCode", "requestIdentifier"]),
        .init("extendRenewalDateForAllActiveSubscribers",
              body: ["extendByDays", "extendReasonCode", "requestIdentifier", "storefrontCountryCodes", "productId"],
              requiredBody: ["extendByDays", "extendReasonCode", "requestIdentifier", "productId"]),
        .init("getStatusOfSubscriptionRenewalDateExtensions", identifiers: ["productId", "requestIdentifier"]),
        .init("sendConsumptionInformation", identifiers: ["transactionId"],
              body: ["customerConsented", "deliveryStatus", "sampleContentProvided", "consumptionPercentage", "refundPreference"],
              requiredBody: ["customerConsented", "deliveryStatus", "sampleContentProvided"]),
        .init("setAppAccountToken", identifiers: ["originalTransactionId"], body: ["appAccountToken"],
              requiredBody: ["appAccountToken"]),
    ]

    static func named(_ name: String) -> AppStoreAPIOperationSpec? { all.first { $0.name == name } }

    /// The `--help` lines: one per operation with its parameters.
    static var helpText: String {
        all.map { spec in
            var parts: [String] = spec.identifiers.map { "\"\($0)\"" }
            if !spec.query.isEmpty { parts.append("query {" + spec.query.joined(separator: ", ") + "}") }
            if !spec.body.isEmpty {
                parts.append("body {" + spec.body.map { spec.requiredBody.contains($0) ? $0 + "*" : $0 }.joined(separator: ", ") + "}")
            }
            switch spec.paging {
            case .none: break
            case .revision: parts.append("allPages (revision)")
            case .paginationToken: parts.append("allPages (paginationToken)")
            }
            return "  " + spec.name + (parts.isEmpty ? "" : ": " + parts.joined(separator: "; "))
        }.joined(separator: "\n")
    }
}
