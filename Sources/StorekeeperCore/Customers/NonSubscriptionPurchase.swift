/// One purchase that is not an auto-renewable subscription (a non-consumable, a non-renewing
/// subscription, a consumable), as `get-customer` answers it under `nonSubscriptions`: one
/// per transaction, with its state now.
public struct NonSubscriptionPurchase: Encodable, Sendable, Equatable {
    public var productId: String?
    public var transactionId: String
    public var originalTransactionId: String
    public var bundleId: String?
    public var purchaseDate: Int64?
    /// Apple's `TransactionType` wire value (the catalog's, when it names one).
    public var type: String?
    public var revocationDate: Int64?
    /// For a non-renewing subscription: its purchase plus the catalog's duration.
    public var expiresDate: Int64?
    /// True for a non-renewing subscription the catalog gives no duration: it stays active.
    public var durationUnknown: Bool
    /// nil for a consumable that was not refunded: it has no state beyond being bought.
    public var status: EntitlementStatus?
    /// Whether it gives its entitlements now (a consumable gives none).
    public var active: Bool
    public var entitlements: [String]
    public var isFamilyShare: Bool
    public var environment: String?
    public var price: Int64?
    public var currency: String?
    public var storefront: String?

    init(_ purchase: CustomerPurchase, transaction: TransactionFacts) {
        let isLatest = transaction.transactionId == purchase.latest.transactionId
        productId = transaction.productId
        transactionId = transaction.transactionId
        originalTransactionId = transaction.originalTransactionId
        bundleId = transaction.bundleId ?? purchase.bundleId
        purchaseDate = transaction.purchaseDate
        type = purchase.type?.rawValue ?? transaction.rawType
        revocationDate = transaction.revocationDate
        expiresDate = isLatest ? purchase.expiresDate : transaction.expiresDate
        durationUnknown = isLatest && purchase.durationUnknown
        status = isLatest ? purchase.status : (transaction.revocationDate != nil ? .refunded : .expired)
        active = isLatest && purchase.active && !purchase.entitlements.isEmpty
        entitlements = purchase.entitlements
        isFamilyShare = transaction.inAppOwnershipType == .familyShared
        environment = transaction.rawEnvironment
        price = transaction.price
        currency = transaction.currency
        storefront = transaction.storefront
    }

    /// A consumable: it grants nothing; refunded when Apple revoked it.
    init(consumable transaction: TransactionFacts) {
        productId = transaction.productId
        transactionId = transaction.transactionId
        originalTransactionId = transaction.originalTransactionId
        bundleId = transaction.bundleId
        purchaseDate = transaction.purchaseDate
        type = transaction.rawType
        revocationDate = transaction.revocationDate
        durationUnknown = false
        status = transaction.revocationDate != nil ? .refunded : nil
        active = false
        entitlements = []
        isFamilyShare = transaction.inAppOwnershipType == .familyShared
        environment = transaction.rawEnvironment
        price = transaction.price
        currency = transaction.currency
        storefront = transaction.storefront
    }

    enum CodingKeys: String, CodingKey {
        case productId, transactionId, originalTransactionId, bundleId, purchaseDate, type, revocationDate, expiresDate
        case durationUnknown, status, active, entitlements, isFamilyShare, environment, price, currency, priceUnit, storefront
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(productId, forKey: .productId)
        try container.encode(transactionId, forKey: .transactionId)
        try container.encode(originalTransactionId, forKey: .originalTransactionId)
        try container.encode(bundleId, forKey: .bundleId)
        try container.encode(purchaseDate, forKey: .purchaseDate)
        try container.encode(type, forKey: .type)
        try container.encode(revocationDate, forKey: .revocationDate)
        try container.encode(expiresDate, forKey: .expiresDate)
        try container.encode(durationUnknown, forKey: .durationUnknown)
        try container.encode(status, forKey: .status)
        try container.encode(active, forKey: .active)
        try container.encode(entitlements, forKey: .entitlements)
        try container.encode(isFamilyShare, forKey: .isFamilyShare)
        try container.encode(environment, forKey: .environment)
        try container.encode(price, forKey: .price)
        try container.encode(currency, forKey: .currency)
        try container.encode(CustomerSubscription.priceUnit, forKey: .priceUnit)
        try container.encode(storefront, forKey: .storefront)
    }
}
