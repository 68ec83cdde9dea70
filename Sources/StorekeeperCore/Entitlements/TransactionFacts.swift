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
    }

    /// The product's type; nil when absent or a value Apple added later.
    public var type: TransactionType? { rawType.flatMap(TransactionType.init(rawValue:)) }

    public var inAppOwnershipType: InAppOwnershipType? {
        rawInAppOwnershipType.flatMap(InAppOwnershipType.init(rawValue:))
    }

    public var environment: Environment? { rawEnvironment.flatMap(Environment.init(rawValue:)) }

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
    }
}
