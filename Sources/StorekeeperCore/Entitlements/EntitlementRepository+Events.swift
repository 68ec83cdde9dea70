/// Events of the repository's writes: whose they are, the TRANSFER when that changes, and the
/// notifications that are events of their own. Each goes into the outbox of the record whose
/// change it reports, by the same compare-and-set (`EventOutbox`, `EventRelay`).
extension EntitlementRepository {
    /// The events a write of `after` makes: a TRANSFER first when the purchase is now someone
    /// else's, then what the fact changed (none when nothing a backend sees changed).
    static func events(of fact: AppleFact, before: EntitlementRecord?, after: inout EntitlementRecord,
                       purchase: SubscriptionRef, customer: String, recordedAt: Int64) -> [Event] {
        var events: [Event] = []
        let latest = after.latestTransaction
        if let previous = after.customerId, previous != customer {
            events.append(.transfer(of: purchase, latest: latest, from: previous, to: customer, at: recordedAt,
                                    source: HistoryEntry.kind(of: fact).source))
        }
        after.customerId = customer
        if let type = EventClassifier.type(of: fact, before: before, after: after) {
            events.append(.of(fact, type: type, purchase: purchase, latest: latest, customerId: customer, recordedAt: recordedAt))
        }
        return events
    }

    /// Whose events a fact about `subscription` is, before linking: its owner, else the user
    /// the caller or the appAccountToken names, else nobody's yet (`otid:`).
    func expectedCustomer(of subscription: SubscriptionRef, userId: String?, appAccountToken: String?) throws -> String {
        if let owner = try owner(of: subscription) { return owner }
        if let userId { return userId }
        if let appAccountToken, !appAccountToken.isEmpty, let user = try user(ofAppAccountToken: appAccountToken) { return user }
        return Event.anonymousCustomer(subscription.originalTransactionId)
    }

    /// Makes the purchase's events `owner`'s (nil: nobody's, `otid:`) from now on, recording a
    /// TRANSFER when they were someone else's. Idempotent: once attributed, nothing changes.
    func attribute(_ subscription: SubscriptionRef, to owner: String?, source: String) throws {
        let key = StoreKeys.entitlement(subscription)
        let target = owner ?? Event.anonymousCustomer(subscription.originalTransactionId)
        let date = recordedAt
        var markers: [EventOutbox.Marker] = []
        try store.update(key, as: EntitlementRecord.self, attempts: Self.compareAndSetAttempts) { (current) throws(StoreError) in
            guard var record = current, record.customerId != target else { return .keep(()) }
            if record.customerId != nil {
                record.outbox.append(.transfer(of: subscription, latest: record.latestTransaction, from: record.customerId,
                                               to: target, at: date, source: source))
            }
            record.customerId = target
            markers = try EventOutbox.markNew(in: &record.outbox, since: current?.outbox, key: key, kind: .entitlement, store: store)
            return .write(record, ())
        }
        events?.relay(markers, store: store)
    }

    /// A notification that is an event of its own although it changes nothing
    /// (`EventClassifier.standalone`): its own outbox, written once, relayed like the others.
    /// A consumable's (`consumable`) is its purchase record's customer's, a subscription's its owner's.
    func recordStandalone(_ fact: AppleFact, purchase: SubscriptionRef?, consumable: Bool = false) throws {
        guard fact.source == .notification, let type = fact.notificationType.flatMap({ EventClassifier.standalone[$0] })
        else { return }
        var purchase = purchase
        if purchase == nil, let appTransactionId = fact.renewalInfo?.appTransactionId ?? fact.transaction?.appTransactionId {
            purchase = try subscriptions(ofAppTransaction: appTransactionId).first
        }
        let latest: TransactionFacts?
        let customer: String?
        if consumable, let purchase {
            let record = try store.get(StoreKeys.purchase(purchase), as: PurchaseRecord.self)
            latest = record?.facts
            customer = record?.customerId ?? Event.anonymousCustomer(purchase.originalTransactionId)
        } else {
            latest = try purchase.flatMap { try self.record($0) }?.latestTransaction
            customer = try purchase.map { try owner(of: $0) ?? Event.anonymousCustomer($0.originalTransactionId) }
        }
        let event = Event.standalone(fact, type: type, purchase: purchase, latest: latest,
                                     customerId: customer, environment: nil, recordedAt: recordedAt)
        let key = StoreKeys.standaloneEvent(event.id)
        // A redelivered notification finds its event waiting or in the log already: no marker again.
        guard try store.get(key) == nil, try EventLog(store: store).sequence(of: event.id) == nil else { return }
        var standalone = StandaloneEvent(outbox: [event])
        let markers = try EventOutbox.markNew(in: &standalone.outbox, since: nil, key: key, kind: .standalone, store: store)
        try store.set(key, record: standalone, expiresIn: nil)
        events?.relay(markers, store: store)
    }

    /// A consumable's events are `owner`'s from now on (nil: nobody's), with a TRANSFER when
    /// they were someone else's; as `attribute` does for subscriptions. Idempotent.
    func attributeConsumable(_ purchase: SubscriptionRef, to owner: String?) throws {
        let key = StoreKeys.purchase(purchase)
        let date = recordedAt
        var markers: [EventOutbox.Marker] = []
        try store.update(key, as: PurchaseRecord.self, attempts: Self.compareAndSetAttempts) { (current) throws(StoreError) in
            // A consumable is its own original transaction; its key names it by transaction id.
            guard var record = current else { return .keep(()) }
            let target = owner ?? Event.anonymousCustomer(record.facts.originalTransactionId)
            guard record.customerId != target else { return .keep(()) }
            if record.customerId != nil {
                record.outbox.append(.transfer(of: purchase, latest: record.facts, from: record.customerId, to: target,
                                               at: date, source: "support"))
            }
            record.customerId = target
            markers = try EventOutbox.markNew(in: &record.outbox, since: current?.outbox, key: key, kind: .purchase, store: store)
            return .write(record, ())
        }
        events?.relay(markers, store: store)
    }
}
