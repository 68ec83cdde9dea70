/// Everything Storekeeper knows about one original transaction (one subscription, or one
/// non-consumable), as it is stored.
///
/// It is kept as merged facts rather than as a status: each transaction's latest signed
/// version, the latest signed renewal info, and the latest event. Each part merges by the
/// time Apple signed it, so applying events in any order, any number of times, gives the same
/// record, and a late event can never overwrite newer facts. The status is derived from the
/// facts (`EntitlementRecord.status`), the same way for notifications, ingested transactions
/// and reconciliation.
public struct EntitlementRecord: Codable, Sendable, Equatable {
    /// Periods kept per subscription: enough for years of monthly renewals; the oldest go first.
    static let transactionLimit = 120

    public var originalTransactionId: String
    /// Each transaction of this subscription by id, the version Apple signed last.
    public var transactions: [String: TransactionFacts]
    public var renewal: RenewalFacts?
    public var lastEvent: EventSummary
    /// Apple's own answer when `reconcile` last asked. Kept in the record (not beside it) so
    /// `get-entitlements` reads one key per subscription; shown only while fresh (8 hours).
    public var confirmedByApple: AppleStatusSnapshot?

    /// The transaction of the latest period: the one the entitlement follows. An event about
    /// an older period (a refund of last month, say) is kept in `transactions` but never
    /// moves the entitlement back to it; an upgrade, being a later purchase, moves it at once.
    public var latestTransaction: TransactionFacts? {
        transactions.values.max { $1.isLaterPeriod(than: $0) }
    }

    /// The instant the status is derived at: the newest thing Apple signed for this record.
    var evaluationTime: Int64 {
        max(lastEvent.signedDate, latestTransaction?.signedDate ?? .min, renewal?.signedDate ?? .min)
    }

    /// The status as of the newest signed information.
    public var status: EntitlementStatus {
        guard let latest = latestTransaction else { return .expired }
        return Self.status(of: latest, renewal: renewal, at: evaluationTime)
    }

    static func status(of transaction: TransactionFacts, renewal: RenewalFacts?, at time: Int64) -> EntitlementStatus {
        if transaction.revocationDate != nil {
            // Family Sharing withdrawn is a revocation; a purchaser's revocation is a refund.
            return transaction.inAppOwnershipType == .familyShared ? .revoked : .refunded
        }
        switch transaction.type {
        case .nonConsumable:
            return .lifetime
        case .nonRenewingSubscription:
            // Apple sets no expiry on these; the app defines the duration.
            guard let expires = transaction.expiresDate else { return .active }
            return expires > time ? .active : .expired
        case .autoRenewableSubscription, .consumable, nil:
            if let expires = transaction.expiresDate, expires > time { return .active }
            if renewal?.isInBillingRetryPeriod == true {
                if let graceEnd = renewal?.gracePeriodExpiresDate, graceEnd > time { return .grace }
                return .billingRetry
            }
            return transaction.expiresDate == nil ? .active : .expired
        }
    }

    /// Merges one version of a transaction in.
    mutating func merge(_ facts: TransactionFacts) {
        if let existing = transactions[facts.transactionId], !facts.isNewer(than: existing) { return }
        transactions[facts.transactionId] = facts
        if transactions.count > Self.transactionLimit,
           let oldest = transactions.values.min(by: { $1.isLaterPeriod(than: $0) }) {
            transactions[oldest.transactionId] = nil
        }
    }

    mutating func merge(_ facts: RenewalFacts) {
        if let renewal, !facts.isNewer(than: renewal) { return }
        renewal = facts
    }

    mutating func merge(_ event: EventSummary) {
        if event.isNewer(than: lastEvent) { lastEvent = event }
    }
}
