/// Everything Storekeeper knows about one original transaction (one subscription, or one
/// non-consumable), as it is stored.
///
/// It is kept as merged facts rather than as a status: each transaction's latest signed
/// version, the latest signed renewal info, and the latest event. Each part merges by the
/// time Apple signed it, so applying events in any order, any number of times, gives the same
/// record, and a late event can never overwrite newer facts. The status is derived from the
/// facts in one place (`status(at:)`), the same way for notifications, ingested transactions,
/// reconciliation and get-entitlements.
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

    /// The status as of the newest signed information: what Apple last said.
    public var status: EntitlementStatus { status(at: nil) }

    /// The end of the billing grace period, while Apple is retrying a failed charge.
    public var gracePeriodEnd: Int64? {
        renewal?.isInBillingRetryPeriod == true ? renewal?.gracePeriodExpiresDate : nil
    }

    /// The one place a record's status is derived. Without `now`, as of the newest signed
    /// information; with it (milliseconds), moved on by the clock when a period or grace
    /// period has ended since Apple last said anything (reconciliation will confirm it).
    /// The clock only moves a status on, never back.
    public func status(at now: Int64?) -> EntitlementStatus {
        guard let latest = latestTransaction else { return .expired }
        let signed = Self.status(of: latest, renewal: renewal, at: evaluationTime)
        guard let now else { return signed }
        if signed == .active, let expires = latest.expiresDate, expires <= now {
            return gracePeriodEnd.map { $0 > now } == true ? .grace : .expired
        }
        if signed == .grace, let end = gracePeriodEnd, end <= now {
            return .billingRetry
        }
        return signed
    }

    private static func status(of transaction: TransactionFacts, renewal: RenewalFacts?, at time: Int64) -> EntitlementStatus {
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
