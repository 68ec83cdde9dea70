/// One auto-renewable subscription as `get-customer` answers it under `subscriptions`: where
/// it stands now, and every fact Storekeeper keeps of it (each period's transaction as Apple
/// signed it, the renewal info, the last event, Apple's last reconciliation answer).
/// Prices are Apple's integers, in the unit `priceUnit` names.
public struct CustomerSubscription: Encodable, Sendable, Equatable {
    /// Apple signs `price` and `renewalPrice` in thousandths of the currency unit (10990 is 10.99).
    public static let priceUnit = "milliunits"

    public var originalTransactionId: String
    public var bundleId: String?
    public var productId: String?
    public var status: EntitlementStatus
    /// Whether it gives its entitlements now (its status, and the app's sandbox policy).
    public var active: Bool
    public var entitlements: [String]
    public var purchaseDate: Int64?
    public var originalPurchaseDate: Int64?
    public var expiresDate: Int64?
    public var periodType: PeriodType
    public var willRenew: Bool
    public var autoRenewProductId: String?
    public var unsubscribeDetectedAt: Int64?
    public var billingIssueDetectedAt: Int64?
    public var gracePeriodExpiresDate: Int64?
    public var expirationReason: String?
    public var isFamilyShare: Bool
    public var environment: String?
    public var appTransactionId: String?
    /// Every kept period, oldest first.
    public var transactions: [TransactionFacts]
    public var renewal: RenewalFacts?
    public var lastEvent: EventSummary
    public var confirmedByApple: AppleStatusSnapshot?

    init(_ purchase: CustomerPurchase) {
        let record = purchase.record
        originalTransactionId = record.originalTransactionId
        bundleId = purchase.bundleId
        productId = purchase.latest.productId
        status = purchase.status
        active = purchase.active
        entitlements = purchase.entitlements
        purchaseDate = purchase.latest.purchaseDate
        transactions = record.transactions.values.sorted { $1.isLaterPeriod(than: $0) }
        originalPurchaseDate = transactions.first?.purchaseDate
        expiresDate = purchase.expiresDate
        periodType = purchase.periodType
        willRenew = purchase.willRenew
        autoRenewProductId = record.renewal?.autoRenewProductId
        unsubscribeDetectedAt = record.autoRenewOff?.since
        billingIssueDetectedAt = record.billingIssue?.since
        gracePeriodExpiresDate = record.gracePeriodEnd
        expirationReason = purchase.expirationReason
        isFamilyShare = purchase.isFamilyShare
        environment = purchase.latest.rawEnvironment
        appTransactionId = purchase.latest.appTransactionId ?? record.renewal?.appTransactionId
        renewal = record.renewal
        lastEvent = record.lastEvent
        confirmedByApple = record.confirmedByApple
    }

    enum CodingKeys: String, CodingKey {
        case originalTransactionId, bundleId, productId, status, active, entitlements, purchaseDate, originalPurchaseDate
        case expiresDate, periodType, willRenew, autoRenewProductId, unsubscribeDetectedAt, billingIssueDetectedAt
        case gracePeriodExpiresDate, expirationReason, isFamilyShare, environment, appTransactionId, priceUnit
        case transactions, renewal, lastEvent, confirmedByApple
    }

    /// The state's fields always (null when unknown); the stored facts as they are kept.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(originalTransactionId, forKey: .originalTransactionId)
        try container.encode(bundleId, forKey: .bundleId)
        try container.encode(productId, forKey: .productId)
        try container.encode(status, forKey: .status)
        try container.encode(active, forKey: .active)
        try container.encode(entitlements, forKey: .entitlements)
        try container.encode(purchaseDate, forKey: .purchaseDate)
        try container.encode(originalPurchaseDate, forKey: .originalPurchaseDate)
        try container.encode(expiresDate, forKey: .expiresDate)
        try container.encode(periodType, forKey: .periodType)
        try container.encode(willRenew, forKey: .willRenew)
        try container.encode(autoRenewProductId, forKey: .autoRenewProductId)
        try container.encode(unsubscribeDetectedAt, forKey: .unsubscribeDetectedAt)
        try container.encode(billingIssueDetectedAt, forKey: .billingIssueDetectedAt)
        try container.encode(gracePeriodExpiresDate, forKey: .gracePeriodExpiresDate)
        try container.encode(expirationReason, forKey: .expirationReason)
        try container.encode(isFamilyShare, forKey: .isFamilyShare)
        try container.encode(environment, forKey: .environment)
        try container.encode(appTransactionId, forKey: .appTransactionId)
        try container.encode(Self.priceUnit, forKey: .priceUnit)
        try container.encode(transactions, forKey: .transactions)
        try container.encode(renewal, forKey: .renewal)
        try container.encode(lastEvent, forKey: .lastEvent)
        try container.encode(confirmedByApple, forKey: .confirmedByApple)
    }
}
