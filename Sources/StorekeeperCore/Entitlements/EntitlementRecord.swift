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
    /// Timeline entries kept per subscription: decades of monthly renewals; the oldest go first.
    static let historyLimit = 1_000

    public var originalTransactionId: String
    /// Each transaction of this subscription by id, the version Apple signed last.
    public var transactions: [String: TransactionFacts]
    public var renewal: RenewalFacts?
    public var lastEvent: EventSummary
    /// Apple's own answer when `reconcile` last asked. Kept in the record (not beside it) so
    /// `get-entitlements` reads one key per subscription; shown only while fresh (8 hours).
    public var confirmedByApple: AppleStatusSnapshot?
    /// What happened to this subscription, oldest first (`HistoryEntry.chronological`): one
    /// entry per applied notification, ingested transaction, reconciliation correction and
    /// migration, even when the status did not change; written in the same compare-and-set.
    public var history: [HistoryEntry] = []
    /// Since when auto-renew is off, as Storekeeper first saw it.
    public var autoRenewOff: FirstSeen?
    /// Since when Apple is retrying a failed charge, as Storekeeper first saw it.
    public var billingIssue: FirstSeen?
    /// Whose events this purchase's are (`Event.customerId`): its owner, or
    /// `otid:<originalTransactionId>` while it has none. When the owner changes, a TRANSFER
    /// event says so (`EntitlementRepository.attribute`). Nil in records written before events.
    public var customerId: String?
    /// The events of changes not yet in the event log, written with the change (`EventRelay`).
    public var outbox: [Event] = []

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
    /// The clock only moves a status on, never back. `nonRenewingDuration` (milliseconds,
    /// the catalog's `durationDays`) ends a non-renewing subscription Apple set no expiry for;
    /// without it, it stays active.
    public func status(at now: Int64?, nonRenewingDuration: Int64? = nil) -> EntitlementStatus {
        guard let latest = latestTransaction else { return .expired }
        let expires = Self.expiresDate(of: latest, nonRenewingDuration: nonRenewingDuration)
        let signed = Self.status(of: latest, expires: expires, renewal: renewal, at: evaluationTime)
        guard let now else { return signed }
        if signed == .active, let expires, expires <= now {
            return gracePeriodEnd.map { $0 > now } == true ? .grace : .expired
        }
        if signed == .grace, let end = gracePeriodEnd, end <= now {
            return .billingRetry
        }
        return signed
    }

    /// When a transaction's period ends: Apple's expiry, or for a non-renewing subscription
    /// without one, its purchase plus the catalog's duration.
    public static func expiresDate(of transaction: TransactionFacts, nonRenewingDuration: Int64?) -> Int64? {
        if let expires = transaction.expiresDate { return expires }
        guard transaction.type == .nonRenewingSubscription, let nonRenewingDuration, let purchase = transaction.purchaseDate
        else { return nil }
        return purchase + nonRenewingDuration
    }

    private static func status(of transaction: TransactionFacts, expires: Int64?, renewal: RenewalFacts?,
                               at time: Int64) -> EntitlementStatus {
        if transaction.revocationDate != nil {
            // Family Sharing withdrawn, or a group purchase's seat taken back (ASSIGNED), is a
            // revocation; a purchaser's revocation is a refund.
            return transaction.inAppOwnershipType == .familyShared || transaction.isAssigned ? .revoked : .refunded
        }
        switch transaction.type {
        case .nonConsumable:
            return .lifetime
        case .nonRenewingSubscription:
            // Apple sets no expiry on these; the app defines the duration (the catalog's).
            guard let expires else { return .active }
            return expires > time ? .active : .expired
        case .autoRenewableSubscription, .consumable, nil:
            if let expires, expires > time { return .active }
            if renewal?.isInBillingRetryPeriod == true {
                if let graceEnd = renewal?.gracePeriodExpiresDate, graceEnd > time { return .grace }
                return .billingRetry
            }
            return expires == nil ? .active : .expired
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

    /// Notes what a renewal info says of auto-renew and billing, whether or not it is the
    /// newest (a late one can still be the first to have seen it).
    mutating func observe(_ facts: RenewalFacts) {
        if let status = facts.willRenew {
            var seen = autoRenewOff ?? FirstSeen()
            seen.observe(holds: !status, at: facts.signedDate)
            autoRenewOff = seen
        }
        if let retrying = facts.isInBillingRetryPeriod {
            var seen = billingIssue ?? FirstSeen()
            seen.observe(holds: retrying, at: facts.signedDate)
            billingIssue = seen
        }
    }

    /// Adds a timeline entry once; beyond the limit the oldest go.
    mutating func record(_ entry: HistoryEntry) {
        guard !history.contains(where: { $0.id == entry.id }) else { return }
        history.append(entry)
        history.sort(by: HistoryEntry.chronological)
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
    }
}

extension EntitlementRecord {
    enum CodingKeys: String, CodingKey {
        case originalTransactionId, transactions, renewal, lastEvent, confirmedByApple, history, autoRenewOff, billingIssue,
             customerId, outbox
    }

    /// Records stored before the timeline decode with an empty one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        originalTransactionId = try container.decode(String.self, forKey: .originalTransactionId)
        transactions = try container.decode([String: TransactionFacts].self, forKey: .transactions)
        renewal = try container.decodeIfPresent(RenewalFacts.self, forKey: .renewal)
        lastEvent = try container.decode(EventSummary.self, forKey: .lastEvent)
        confirmedByApple = try container.decodeIfPresent(AppleStatusSnapshot.self, forKey: .confirmedByApple)
        history = try container.decodeIfPresent([HistoryEntry].self, forKey: .history) ?? []
        autoRenewOff = try container.decodeIfPresent(FirstSeen.self, forKey: .autoRenewOff)
        billingIssue = try container.decodeIfPresent(FirstSeen.self, forKey: .billingIssue)
        customerId = try container.decodeIfPresent(String.self, forKey: .customerId)
        outbox = try container.decodeIfPresent([Event].self, forKey: .outbox) ?? []
    }
}
