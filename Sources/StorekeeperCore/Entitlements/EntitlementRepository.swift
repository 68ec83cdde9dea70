import FoundationEssentials

/// Entitlement records and who owns them, in the store. Every write of a record is a
/// compare-and-set on its version, so two workers applying events to the same subscription
/// at once never lose one of them.
public struct EntitlementRepository {
    /// Attempts before contention is reported as a (retryable) store failure.
    static let compareAndSetAttempts = 32

    let store: any KeyValueStore
    /// The catalog's transfer policy and who is calling; nil: the first owner keeps a
    /// purchase (keep-first), and nothing is recorded.
    private let transfers: TransferContext?
    /// When given, the events of each write are relayed into the log at once; without, they
    /// wait in their outbox for the next `EventRelay.relayPending`.
    let events: EventRecording?

    public init(store: any KeyValueStore, transfers: TransferContext? = nil, events: EventRecording? = nil) {
        self.store = store
        self.transfers = transfers
        self.events = events
    }

    /// When events are recorded as happening: the function's clock, else the transfer's date,
    /// else the wall clock.
    var recordedAt: Int64 {
        events?.now ?? transfers?.date ?? Date().millisecondsSince1970
    }

    /// Applies `event` to its subscription's record and links the subscription to its user
    /// (by `userId` when the caller knows it, or by the transaction's appAccountToken).
    /// Safe to repeat: a second application is a duplicate and changes nothing.
    @discardableResult
    public func apply(_ event: AppleFact, userId: String? = nil) throws -> EntitlementUpdate {
        guard let subscription = event.subscription else {
            try recordStandalone(event, purchase: nil)
            return try EntitlementEngine.apply(event, to: nil)
        }
        if event.transaction?.type == .consumable {
            try keepConsumable(event, of: subscription.bundleId, userId: userId)
            // A consumable's refund request is an event too (keyed by its transaction, as kept).
            if let transactionId = event.transaction?.transactionId {
                try recordStandalone(event, purchase: SubscriptionRef(bundleId: subscription.bundleId,
                                                                      originalTransactionId: transactionId), consumable: true)
            }
            return try EntitlementEngine.apply(event, to: nil)
        }
        let customer = try expectedCustomer(of: subscription, userId: userId, appAccountToken: event.transaction?.appAccountToken)
        let key = StoreKeys.entitlement(subscription)
        let recordedAt = recordedAt
        var markers: [EventOutbox.Marker] = []
        let applied = try store.update(key, as: EntitlementRecord.self,
                                       attempts: Self.compareAndSetAttempts) { (current) throws(StoreError) in
            let update: EntitlementUpdate
            do throws(EntitlementError) {
                update = try EntitlementEngine.apply(event, to: current)
            } catch {
                return .keep(Result<EntitlementUpdate, EntitlementError>.failure(error))
            }
            // A stale fact still adds its timeline entry: written, in the same compare-and-set.
            guard var record = update.record, record != current else { return .keep(.success(update)) }
            record.outbox += Self.events(of: event, before: current, after: &record, purchase: subscription,
                                         customer: customer, recordedAt: recordedAt)
            if current == nil {
                // Indexed before the first write: a crash in between leaves an id without
                // a record (reconciliation asks Apple about it), never a record nobody finds.
                try store.addToSet(StoreKeys.subscriptionIndex, subscription.member)
            }
            markers = try EventOutbox.markNew(in: &record.outbox, since: current?.outbox, key: key, kind: .entitlement, store: store)
            var written = update
            written.record = record
            return .write(record, .success(written))
        }
        let update = try applied.get()
        // Linking is idempotent, so it is done for duplicates too: a worker killed between
        // the record write and the links finishes the job on redelivery.
        if update.record != nil {
            let owner = try link(subscription, userId: userId, appAccountToken: event.transaction?.appAccountToken, fact: event)
            try index(subscription, of: event)
            if let owner, owner != customer || update.record?.customerId != owner {
                try attribute(subscription, to: owner, source: HistoryEntry.kind(of: event).source)
            }
        }
        events?.relay(markers, store: store)
        if update.outcome == .ignored { try recordStandalone(event, purchase: subscription) }
        return update
    }

    /// Every subscription that has (or was about to get) a record, sorted; of one app when
    /// `bundleId` is given.
    public func allSubscriptions(of bundleId: String? = nil) throws -> [SubscriptionRef] {
        try Self.references(store.setMembers(StoreKeys.subscriptionIndex)).filter { bundleId == nil || $0.bundleId == bundleId }
    }

    /// The apps that have a subscription with this original transaction id: a walk of the
    /// index, for a caller that was not told the app.
    public func apps(holding originalTransactionId: String) throws -> [String] {
        try allSubscriptions().filter { $0.originalTransactionId == originalTransactionId }.map(\.bundleId)
    }

    public func record(_ subscription: SubscriptionRef) throws -> EntitlementRecord? {
        try store.get(StoreKeys.entitlement(subscription), as: EntitlementRecord.self)
    }

    /// The entitlements of these subscriptions as of `now`, each once, in order; those with
    /// no record are skipped. Each carries Apple's last reconciliation answer while it is fresh.
    public func entitlements(of subscriptions: [SubscriptionRef], now: Date) throws -> [Entitlement] {
        try entitlements(of: subscriptions, now: now, catalog: nil)
    }

    /// The same, decided with the catalog as the customer answer decides (non-renewing
    /// durations, the sandbox policy); nil: by the record alone.
    public func entitlements(of subscriptions: [SubscriptionRef], now: Date, catalog: Catalog?) throws -> [Entitlement] {
        try Set(subscriptions).sorted().compactMap { subscription in
            try record(subscription).map { Entitlement($0, now: now, catalog: catalog, bundleId: subscription.bundleId) }
        }
    }

    /// Records what Apple answered about a subscription that has a record (compare-and-set,
    /// like every write of a record). False when there is no record.
    @discardableResult
    public func confirm(_ snapshot: AppleStatusSnapshot, for subscription: SubscriptionRef) throws -> Bool {
        try store.update(StoreKeys.entitlement(subscription), as: EntitlementRecord.self,
                         attempts: Self.compareAndSetAttempts) { (current) throws(StoreError) in
            guard var record = current else { return .keep(false) }
            record.confirmedByApple = snapshot
            return .write(record, true)
        }
    }

    /// The subscriptions of a user, every app, including those that carried the user's
    /// appAccountToken before the user was known; sorted.
    public func subscriptions(ofUser userId: String) throws -> [SubscriptionRef] {
        try Self.references(store.setMembers(StoreKeys.userSubscriptions(userId)))
    }

    public func subscriptions(ofAppAccountToken token: String) throws -> [SubscriptionRef] {
        try Self.references(store.setMembers(StoreKeys.appAccountTokenSubscriptions(token)))
    }

    /// The user that owns a subscription, if it is linked.
    public func owner(of subscription: SubscriptionRef) throws -> String? {
        try store.get(StoreKeys.owner(subscription)).map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    private static func references(_ members: [String]) -> [SubscriptionRef] {
        members.compactMap(SubscriptionRef.init(member:)).sorted()
    }

    /// The user an appAccountToken was handed to, if any.
    public func user(ofAppAccountToken token: String) throws -> String? {
        try store.get(StoreKeys.appAccountToken(token)).map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// Records that `token` belongs to `userId`. The first owner keeps it: a token is handed
    /// to one user only, and a second claim is refused (false).
    @discardableResult
    public func assign(appAccountToken token: String, toUser userId: String) throws -> Bool {
        let claimed = try store.setIfAbsent(StoreKeys.appAccountToken(token), Array(userId.utf8), expiresIn: nil)
        guard try claimed || user(ofAppAccountToken: token) == userId else { return false }
        // Once the links below were all made, claiming again has nothing to add: a purchase
        // carrying the token after the claim is linked to its owner when applied (`link`).
        // Without this, every transaction of a user with many purchases would relink them
        // all: a batch of n of them would cost n² store writes.
        let linked = StoreKeys.appAccountTokenLinked(token)
        if !claimed, try store.get(linked) != nil { return true }
        // Subscriptions that carried the token before the user was known join the user now.
        // Also when the token was already this user's and the mark is missing: a run killed
        // between the claim and these links is finished by the next one (linking is idempotent).
        for subscription in try subscriptions(ofAppAccountToken: token) {
            let owner = try link(subscription, userId: userId, appAccountToken: nil)
            try attribute(subscription, to: owner ?? self.owner(of: subscription), source: "link")
        }
        try store.set(linked, Array("1".utf8), expiresIn: nil)
        return true
    }

    /// Links the subscription to its user; returns who owns it afterwards when a user was
    /// named (nil: no user known, nothing changed).
    @discardableResult
    private func link(_ subscription: SubscriptionRef, userId explicitUser: String?, appAccountToken: String?,
                      fact: AppleFact? = nil) throws -> String? {
        var userId = explicitUser
        if let token = appAccountToken, !token.isEmpty {
            try store.addToSet(StoreKeys.appAccountTokenSubscriptions(token), subscription.member)
            if userId == nil { userId = try user(ofAppAccountToken: token) }
        }
        guard let userId else { return nil }
        if try store.setIfAbsent(StoreKeys.owner(subscription), Array(userId.utf8), expiresIn: nil) {
            try store.addToSet(StoreKeys.userSubscriptions(userId), subscription.member)
            return userId
        }
        // Owned already: the app's transfer policy decides (keep-first: a different user is
        // not silently linked).
        let policy = transfers?.policy(bundleId: subscription.bundleId) ?? .keepFirst
        let owner = try owner(of: subscription)
        switch policy.decide(owner: owner, claimant: userId,
                             mayTransfer: explicitUser != nil || fact?.source == .ingest) {
        case .link:
            try store.addToSet(StoreKeys.userSubscriptions(userId), subscription.member)
            return owner ?? userId
        case .keep:
            return owner
        case .move(let from):
            if let transfers, let fact {
                try CustomerRepository(store: store).recordTransfer(
                    of: subscription, productId: fact.transaction?.productId, from: from, to: userId,
                    context: transfers, factId: fact.id)
            }
            try move(subscription, from: from, to: userId, source: fact.map { HistoryEntry.kind(of: $0).source } ?? "support")
            return userId
        }
    }

    // MARK: Moving and removing links (support operations)

    /// Makes `userId` the subscription's owner in place of `previous` (nil: of nobody), and
    /// moves it between their sets. False, changing nothing, when another user owns it.
    /// Idempotent: once moved, moving again only finishes the sets.
    @discardableResult
    public func move(_ subscription: SubscriptionRef, from previous: String?, to userId: String,
                     source: String = "support") throws -> Bool {
        let key = StoreKeys.owner(subscription)
        let stored = try store.get(key)
        let current = stored.map { String(decoding: $0.bytes, as: UTF8.self) }
        if current != userId {
            guard current == previous,
                  try store.compareAndSet(key, Array(userId.utf8), expectedVersion: stored?.version, expiresIn: nil) else { return false }
        }
        try store.addToSet(StoreKeys.userSubscriptions(userId), subscription.member)
        if let previous, previous != userId { try store.removeFromSet(StoreKeys.userSubscriptions(previous), subscription.member) }
        try attribute(subscription, to: userId, source: source)
        return true
    }

    /// Takes the subscription away from `userId`: its owner key (when it is still theirs) and
    /// its place in their set. The record stays, anonymous.
    public func unlink(_ subscription: SubscriptionRef, fromUser userId: String) throws {
        if try owner(of: subscription) == userId { try store.delete(StoreKeys.owner(subscription)) }
        try store.removeFromSet(StoreKeys.userSubscriptions(userId), subscription.member)
        try attribute(subscription, to: try owner(of: subscription), source: "support")
    }

    /// Hands `token` from `previous` to `userId` (compare-and-set: only while it is still
    /// `previous`'s) and moves the subscriptions that carried it and were `previous`'s.
    /// False when the token is someone else's.
    @discardableResult
    public func move(appAccountToken token: String, from previous: String, to userId: String) throws -> Bool {
        let key = StoreKeys.appAccountToken(token)
        let stored = try store.get(key)
        let current = stored.map { String(decoding: $0.bytes, as: UTF8.self) }
        if current != userId {
            guard let stored, current == previous,
                  try store.compareAndSet(key, Array(userId.utf8), expectedVersion: stored.version, expiresIn: nil) else { return false }
        }
        for subscription in try subscriptions(ofAppAccountToken: token) {
            try move(subscription, from: previous, to: userId)
        }
        return true
    }

    /// Forgets that `token` was `userId`'s (when it still is): purchases carrying it are
    /// no longer linked to anyone by it. The set of subscriptions that carried it stays.
    @discardableResult
    public func release(appAccountToken token: String, ofUser userId: String) throws -> Bool {
        guard try user(ofAppAccountToken: token) == userId else { return false }
        try store.delete(StoreKeys.appAccountTokenLinked(token))
        return try store.delete(StoreKeys.appAccountToken(token))
    }

    // MARK: Finding a customer by Apple's ids (issue 14)

    /// Indexes the subscription under the ids Apple gave the fact: its transaction id, and
    /// the app-transaction id (the one customer id RESCIND_CONSENT carries). Idempotent.
    private func index(_ subscription: SubscriptionRef, of event: AppleFact) throws {
        if let transactionId = event.transaction?.transactionId, !transactionId.isEmpty {
            try store.addToSet(StoreKeys.transaction(transactionId), subscription.member)
        }
        for appTransactionId in Set([event.transaction?.appTransactionId, event.renewalInfo?.appTransactionId].compactMap { $0 })
        where !appTransactionId.isEmpty {
            try store.addToSet(StoreKeys.appTransaction(appTransactionId), subscription.member)
        }
    }

    /// The subscriptions a transaction id belongs to (one, but for test environments that
    /// hand the same ids to two apps). A store written before the index knows an original
    /// transaction id by its record: `apps` are looked in for it.
    public func subscriptions(ofTransaction transactionId: String, apps: [String]) throws -> [SubscriptionRef] {
        let indexed = try Self.references(store.setMembers(StoreKeys.transaction(transactionId)))
        guard indexed.isEmpty else { return indexed }
        return try apps.map { SubscriptionRef(bundleId: $0, originalTransactionId: transactionId) }.filter { try record($0) != nil }
    }

    /// The subscriptions that carried an app-transaction id.
    public func subscriptions(ofAppTransaction appTransactionId: String) throws -> [SubscriptionRef] {
        try Self.references(store.setMembers(StoreKeys.appTransaction(appTransactionId)))
    }

    // MARK: Consumables (issue 14)

    /// A consumable grants nothing, but the customer answer lists it: its facts are kept
    /// (the version Apple signed last), linked to the user when known. Idempotent.
    private func keepConsumable(_ event: AppleFact, of bundleId: String, userId: String?) throws {
        guard let transaction = event.transaction else { return }
        let facts: TransactionFacts
        do throws(EntitlementError) {
            facts = try TransactionFacts(transaction, signedDate: event.signedDate)
        } catch {
            return
        }
        let purchase = SubscriptionRef(bundleId: bundleId, originalTransactionId: facts.transactionId)
        var owner = userId
        if owner == nil, let token = facts.appAccountToken, !token.isEmpty { owner = try user(ofAppAccountToken: token) }
        // Indexed before the write, like subscriptions: export-data walks every purchase.
        try store.addToSet(StoreKeys.purchaseIndex, purchase.member)
        let key = StoreKeys.purchase(purchase)
        let customer = owner ?? Event.anonymousCustomer(facts.originalTransactionId)
        let recordedAt = recordedAt
        var markers: [EventOutbox.Marker] = []
        try store.update(key, as: PurchaseRecord.self, attempts: Self.compareAndSetAttempts) { (current) throws(StoreError) in
            if let current, !facts.isNewer(than: current.facts) { return .keep(()) }
            var record = PurchaseRecord(facts: facts, customerId: current?.customerId ?? customer, outbox: current?.outbox ?? [])
            let type: EventType? = current == nil ? .consumablePurchase
                : facts.revocationDate != nil && current?.facts.revocationDate == nil ? .refund
                : facts.revocationDate == nil && current?.facts.revocationDate != nil ? .refundReversed : nil
            if let type, let customerId = record.customerId {
                record.outbox.append(.of(event, type: type, purchase: purchase, latest: facts, customerId: customerId,
                                         recordedAt: recordedAt))
            }
            markers = try EventOutbox.markNew(in: &record.outbox, since: current?.outbox, key: key, kind: .purchase, store: store)
            return .write(record, ())
        }
        if let owner { try store.addToSet(StoreKeys.userPurchases(owner), purchase.member) }
        events?.relay(markers, store: store)
    }

    /// Moves a user's consumable purchases to another user (merge-customers). Idempotent.
    @discardableResult
    public func moveConsumables(from previous: String, to userId: String) throws -> Int {
        let members = try store.setMembers(StoreKeys.userPurchases(previous))
        for member in members {
            try store.addToSet(StoreKeys.userPurchases(userId), member)
            if let purchase = SubscriptionRef(member: member) { try attributeConsumable(purchase, to: userId) }
            try store.removeFromSet(StoreKeys.userPurchases(previous), member)
        }
        return members.count
    }

    /// Unlinks a user's consumable purchases (delete-customer): their facts stay, anonymous.
    @discardableResult
    public func unlinkConsumables(ofUser userId: String) throws -> Int {
        let members = try store.setMembers(StoreKeys.userPurchases(userId))
        for member in members {
            if let purchase = SubscriptionRef(member: member) { try attributeConsumable(purchase, to: nil) }
            try store.removeFromSet(StoreKeys.userPurchases(userId), member)
        }
        return members.count
    }

    /// Every consumable purchase (app and transaction id) indexed since layout 3, sorted.
    public func allConsumablePurchases() throws -> [SubscriptionRef] {
        try Self.references(store.setMembers(StoreKeys.purchaseIndex))
    }

    /// A consumable purchase's facts, as Apple signed them last.
    public func consumable(_ purchase: SubscriptionRef) throws -> TransactionFacts? {
        try store.get(StoreKeys.purchase(purchase), as: PurchaseRecord.self)?.facts
    }

    /// The consumable purchases of a user, oldest first.
    public func consumables(ofUser userId: String) throws -> [TransactionFacts] {
        try Self.references(store.setMembers(StoreKeys.userPurchases(userId)))
            .compactMap { try store.get(StoreKeys.purchase($0), as: PurchaseRecord.self)?.facts }
            .sorted { $1.isLaterPeriod(than: $0) }
    }
}
