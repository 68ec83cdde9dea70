/// What a retention rule may ask of a subscription's stored record: when it began and which
/// offers it redeemed. Read from the record Storekeeper keeps (notifications, ingested
/// transactions, imports), never from Apple.
public struct RetentionHistory: Sendable, Equatable {
    /// When the subscription began (its original purchase), in milliseconds; nil when the
    /// record has no date to say so.
    public var startedAt: Int64?
    /// Whether any transaction of the subscription redeemed a promotional or win-back offer.
    public var offerRedeemed: Bool

    public init(startedAt: Int64?, offerRedeemed: Bool) {
        self.startedAt = startedAt
        self.offerRedeemed = offerRedeemed
    }

    /// The facts of `record`: the earliest original purchase date (or, lacking one, purchase
    /// date) of its transactions.
    public init(record: EntitlementRecord) {
        let dates = record.transactions.values.compactMap { $0.originalPurchaseDate ?? $0.purchaseDate }
        startedAt = dates.min()
        offerRedeemed = record.transactions.values.contains { $0.offerType == .promotionalOffer || $0.offerType == .winBackOffer }
    }

    /// Whole days from the start to `instant` (milliseconds); nil without a start.
    public func subscribedDays(at instant: Int64) -> Int64? {
        startedAt.map { max(0, instant - $0) / 86_400_000 }
    }

    /// What the customer's record says, as the choice sees it.
    public enum Lookup: Sendable, Equatable {
        case found(RetentionHistory)
        /// Storekeeper holds no record of the subscription.
        case notFound
        /// The store failed; the reason is for the log.
        case storeFailed(String)
    }
}
