/// What an entitlement keeps of one transaction: the fields that decide access, taken from
/// Apple's signed transaction. Several versions of the same transaction arrive over time (a
/// refund adds `revocationDate`, a reversal removes it); the one Apple signed last wins.
public struct TransactionFacts: Codable, Sendable, Equatable, Hashable {
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String?
    /// Apple's `type`: "Auto-Renewable Subscription", "Non-Consumable", ...
    public var type: String?
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Int64?
    public var expiresDate: Int64?
    public var signedDate: Int64
    public var revocationDate: Int64?
    public var revocationReason: Int32?
    public var inAppOwnershipType: String?
    public var isUpgraded: Bool?
    public var environment: String?
    public var appAccountToken: String?

    public init(_ transaction: JWSTransactionDecodedPayload, signedDate fallback: Int64) throws(EntitlementError) {
        guard let transactionId = transaction.transactionId, let originalTransactionId = transaction.originalTransactionId else {
            throw EntitlementError("transaction without transactionId or originalTransactionId")
        }
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        productId = transaction.productId
        type = transaction.rawType
        subscriptionGroupIdentifier = transaction.subscriptionGroupIdentifier
        purchaseDate = transaction.purchaseDate
        expiresDate = transaction.expiresDate
        signedDate = transaction.signedDate ?? fallback
        revocationDate = transaction.revocationDate
        revocationReason = transaction.rawRevocationReason
        inAppOwnershipType = transaction.rawInAppOwnershipType
        isUpgraded = transaction.isUpgraded
        environment = transaction.rawEnvironment
        appAccountToken = transaction.appAccountToken
    }

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
}
