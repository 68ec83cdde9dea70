import FoundationEssentials

/// The filters of Get Transaction History (v2), sent as query parameters. Every page of one
/// history must repeat the first page's filters.
///
/// [Get Transaction History](https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history)
public struct TransactionHistoryRequest: Sendable, Equatable {
    /// Milliseconds since 1970.
    public var startDate: Int64?
    /// Milliseconds since 1970.
    public var endDate: Int64?
    public var productIds: [String]?
    /// `ProductType` wire values.
    public var productTypes: [String]?
    /// `ASCENDING` or `DESCENDING`.
    public var sort: String?
    public var subscriptionGroupIdentifiers: [String]?
    /// An `InAppOwnershipType` wire value.
    public var inAppOwnershipType: String?
    public var revoked: Bool?

    public init(startDate: Int64? = nil, endDate: Int64? = nil, productIds: [String]? = nil,
                productTypes: [String]? = nil, sort: String? = nil, subscriptionGroupIdentifiers: [String]? = nil,
                inAppOwnershipType: String? = nil, revoked: Bool? = nil) {
        self.startDate = startDate
        self.endDate = endDate
        self.productIds = productIds
        self.productTypes = productTypes
        self.sort = sort
        self.subscriptionGroupIdentifiers = subscriptionGroupIdentifiers
        self.inAppOwnershipType = inAppOwnershipType
        self.revoked = revoked
    }

    /// The product types a history can be filtered by.
    public enum ProductType: String, Sendable, CaseIterable {
        case autoRenewable = "AUTO_RENEWABLE"
        case nonRenewable = "NON_RENEWABLE"
        case consumable = "CONSUMABLE"
        case nonConsumable = "NON_CONSUMABLE"
    }

    /// History order.
    public enum Order: String, Sendable, CaseIterable {
        case ascending = "ASCENDING"
        case descending = "DESCENDING"
    }

    /// The query parameters, repeated names for lists, in a stable order.
    public var queryItems: [(String, String)] {
        var items: [(String, String)] = []
        if let startDate { items.append(("startDate", String(startDate))) }
        if let endDate { items.append(("endDate", String(endDate))) }
        for id in productIds ?? [] { items.append(("productId", id)) }
        for type in productTypes ?? [] { items.append(("productType", type)) }
        if let sort { items.append(("sort", sort)) }
        for group in subscriptionGroupIdentifiers ?? [] { items.append(("subscriptionGroupIdentifier", group)) }
        if let inAppOwnershipType { items.append(("inAppOwnershipType", inAppOwnershipType)) }
        if let revoked { items.append(("revoked", revoked ? "true" : "false")) }
        return items
    }
}
