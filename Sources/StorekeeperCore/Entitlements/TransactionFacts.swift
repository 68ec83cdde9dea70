/// What an entitlement keeps of one transaction: the fields that decide access, taken from
/// Apple's signed transaction. Several versions of the same transaction arrive over time (a
/// refund adds `revocationDate`, a reversal removes it); the one Apple signed last wins.
///
/// Apple's wire enums are stored as Apple spelled them (a value Apple adds later still
/// reads) and decided on through the typed accessors (`type`, `inAppOwnershipType`).
public struct TransactionFacts: Codable, Sendable, Equatable, Hashable {
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String?
    /// The wire value of `type`: "Auto-Renewable Subscription", "Non-Consumable", ...
    public var rawType: String?
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Int64?
    public var expiresDate: Int64?
    public var signedDate: Int64
    public var revocationDate: Int64?
    public var revocationReason: Int32?
    /// The wire value of `inAppOwnershipType`.
    public var rawInAppOwnershipType: String?
    public var isUpgraded: Bool?
    /// The wire value of `environment`.
    public var rawEnvironment: String?
    public var appAccountToken: String?
    // Kept since issue 14 (optional, so records stored before still decode): what the
    // customer answer shows of a purchase. Wire enums raw, as Apple spells them.
    public var bundleId: String?
    /// Apple's app-transaction id: the one customer id RESCIND_CONSENT carries (API 1.15).
    public var appTransactionId: String?
    /// The wire value of `offerType` (1 introductory, 2 promotional, 3 offer code, 4 win-back).
    public var rawOfferType: Int32?
    public var offerIdentifier: String?
    /// The wire value of `offerDiscountType`: FREE_TRIAL, PAY_AS_YOU_GO, PAY_UP_FRONT, ONE_TIME.
    public var rawOfferDiscountType: String?
    /// ISO 8601 duration of the offer, e.g. P1M.
    public var offerPeriod: String?
    /// In milliunits of `currency` (10990 is 10.99), as Apple signs it.
    public var price: Int64?
    public var currency: String?
    /// The wire value of `transactionReason`: PURCHASE or RENEWAL.
    public var rawTransactionReason: String?
    /// The wire value of `revocationType`.
    public var rawRevocationType: String?
    /// For a partial refund: thousandths of a percent refunded.
    public var revocationPercentage: Int64?
    public var storefront: String?
    /// The plan's commitment (a monthly plan with a 12-month commitment).
    public var commitmentInfo: TransactionCommitmentInfo?
    // Kept since issue 15 (optional, records stored before decode without them): what
    // export-data's rows carry beside the above.
    /// Apple's id of one period of a subscription across devices (web order line item).
    public var webOrderLineItemId: String?
    /// When the original transaction (the first period) was bought.
    public var originalPurchaseDate: Int64?

    public init(_ transaction: JWSTransactionDecodedPayload, signedDate fallback: Int64) throws(EntitlementError) {
        guard let transactionId = transaction.transactionId, let originalTransactionId = transaction.originalTransactionId else {
            throw EntitlementError("transaction without transactionId or originalTransactionId")
        }
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        productId = transaction.productId
        rawType = transaction.rawType
        subscriptionGroupIdentifier = transaction.subscriptionGroupIdentifier
        purchaseDate = transaction.purchaseDate
        expiresDate = transaction.expiresDate
        signedDate = transaction.signedDate ?? fallback
        revocationDate = transaction.revocationDate
        revocationReason = transaction.rawRevocationReason
        rawInAppOwnershipType = transaction.rawInAppOwnershipType
        isUpgraded = transaction.isUpgraded
        rawEnvironment = transaction.rawEnvironment
        appAccountToken = transaction.appAccountToken
        bundleId = transaction.bundleId
        appTransactionId = transaction.appTransactionId
        rawOfferType = transaction.rawOfferType
        offerIdentifier = transaction.offerIdentifier
        rawOfferDiscountType = transaction.rawOfferDiscountType
        offerPeriod = transaction.offerPeriod
        price = transaction.price
        currency = transaction.currency
        rawTransactionReason = transaction.rawTransactionReason
        rawRevocationType = transaction.rawRevocationType
        revocationPercentage = transaction.revocationPercentage
        storefront = transaction.storefront
        commitmentInfo = transaction.commitmentInfo
        webOrderLineItemId = transaction.webOrderLineItemId
        originalPurchaseDate = transaction.originalPurchaseDate
    }

    /// The product's type; nil when absent or a value Apple added later.
    public var type: TransactionType? { rawType.flatMap(TransactionType.init(rawValue:)) }

    public var inAppOwnershipType: InAppOwnershipType? {
        rawInAppOwnershipType.flatMap(InAppOwnershipType.init(rawValue:))
    }

    public var environment: Environment? { rawEnvironment.flatMap(Environment.init(rawValue:)) }

    public var offerType: OfferType? { rawOfferType.flatMap(OfferType.init(rawValue:)) }

    public var offerDiscountType: OfferDiscountType? { rawOfferDiscountType.flatMap(OfferDiscountType.init(rawValue:)) }

    /// A group purchase's member: ASSIGNED. Its revocation is the seat taken back, not a refund.
    public var isAssigned: Bool { inAppOwnershipType == .assigned }

    /// Later signed wins; for the same instant, a fixed order of the content, so merging in
    /// any order gives the same answer.
    func isNewer(than other: TransactionFacts) -> Bool {
        if signedDate != other.signedDate { return signedDate > other.signedDate }
        return MergeOrder.isGreater(self, than: other)
    }

    /// The period that comes later: later purchase, then larger id.
    func isLaterPeriod(than other: TransactionFacts) -> Bool {
        let mine = purchaseDate ?? Int64.min
        let theirs = other.purchaseDate ?? Int64.min
        if mine != theirs { return mine > theirs }
        return transactionId > other.transactionId
    }

    /// The stored names are Apple's, as records already in a store spell them.
    enum CodingKeys: String, CodingKey {
        case transactionId, originalTransactionId, productId
        case rawType = "type"
        case subscriptionGroupIdentifier, purchaseDate, expiresDate, signedDate, revocationDate, revocationReason
        case rawInAppOwnershipType = "inAppOwnershipType"
        case isUpgraded
        case rawEnvironment = "environment"
        case appAccountToken
        case bundleId, appTransactionId
        case rawOfferType = "offerType"
        case offerIdentifier
        case rawOfferDiscountType = "offerDiscountType"
        case offerPeriod, price, currency
        case rawTransactionReason = "transactionReason"
        case rawRevocationType = "revocationType"
        case revocationPercentage, storefront, commitmentInfo
        case webOrderLineItemId, originalPurchaseDate
    }
}
