import FoundationEssentials

/// Entitlement records and who owns them, in the store. Every write of a record is a
/// compare-and-set on its version, so two workers applying events to the same subscription
/// at once never lose one of them.
public struct EntitlementRepository {
    /// Attempts before contention is reported as a (retryable) store failure.
    static let compareAndSetAttempts = 32

    private let store: any KeyValueStore
    /// The catalog's transfer policy and who is calling; nil: the first owner keeps a
    /// purchase (keep-first), and nothing is recorded.
    private let transfers: TransferContext?

    public init(store: any KeyValueStore, transfers: TransferContext? = nil) {
        self.store = store
        self.transfers = transfers
    }

    /// Applies `event` to its subscription's record and links the subscription to its user
    /// (by `userId` when the caller knows it, or by the transaction's appAccountToken).
    /// Safe to repeat: a second application is a duplicate and changes nothing.
    @discardableResult
    public func apply(_ event: AppleFact, userId: String? = nil) throws -> EntitlementUpdate {
        guard let originalTransactionId = event.originalTransactionId else {
            return try EntitlementEngine.apply(event, to: nil)
        }
        let applied = try store.update(StoreKeys.entitlement(originalTransactionId), as: EntitlementRecord.self,
                                       attempts: Self.compareAndSetAttempts) { (current) throws(StoreError) in
            let update: EntitlementUpdate
            do throws(EntitlementError) {
                update = try EntitlementEngine.apply(event, to: current)
            } catch {
                return .keep(Result<EntitlementUpdate, EntitlementError>.failure(error))
            }
            guard update.outcome == .applied, let record = update.record else { return .keep(.success(update)) }
            if current == nil {
                // Indexed before the first write: a crash in between leaves an id without
                // a record (reconciliation asks Apple about it), never a record nobody finds.
                try store.addToSet(StoreKeys.entitlementIndex, originalTransactionId)
            }
            return .write(record, .success(update))
        }
        let update = try applied.get()
        // Linking is idempotent, so it is done for duplicates too: a worker killed between
        // the record write and the links finishes the job on redelivery.
        if update.record != nil {
            try link(originalTransactionId, userId: userId, appAccountToken: event.transaction?.appAccountToken, fact: event)
        }
        return update
    }

    /// Every original transaction id that has (or was about to get) a record, sorted.
    public func allOriginalTransactionIds() throws -> [String] {
        try store.setMembers(StoreKeys.entitlementIndex)
    }

    public func record(_ originalTransactionId: String) throws -> EntitlementRecord? {
        try store.get(StoreKeys.entitlement(originalTransactionId), as: EntitlementRecord.self)
    }

    /// The entitlements of these subscriptions as of `now`, each once, in id order; ids with
    /// no record are skipped. Each carries Apple's last reconciliation answer while it is fresh.
    public func entitlements(of originalTransactionIds: [String], now: Date) throws -> [Entitlement] {
        try Set(originalTransactionIds).sorted().compactMap { try record($0) }.map { Entitlement($0, now: now) }
    }

    /// Records what Apple answered about a subscription that has a record (compare-and-set,
    /// like every write of a record). False when there is no record.
    @discardableResult
    public func confirm(_ snapshot: AppleStatusSnapshot, for originalTransactionId: String) throws -> Bool {
        try store.update(StoreKeys.entitlement(originalTransactionId), as: EntitlementRecord.self,
                         attempts: Self.compareAndSetAttempts) { (current) throws(StoreError) in
            guard var record = current else { return .keep(false) }
            record.confirmedByApple = snapshot
            return .write(record, true)
        }
    }

    /// The original transaction ids of a user, including those that carried the user's
    /// appAccountToken before the user was known.
    public func originalTransactionIds(ofUser userId: String) throws -> [String] {
        try store.setMembers(StoreKeys.userTransactions(userId))
    }

    public func originalTransactionIds(ofAppAccountToken token: String) throws -> [String] {
        try store.setMembers(StoreKeys.appAccountTokenTransactions(token))
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
        for originalTransactionId in try originalTransactionIds(ofAppAccountToken: token) {
            try link(originalTransactionId, userId: userId, appAccountToken: nil)
        }
        try store.set(linked, Array("1".utf8), expiresIn: nil)
        return true
    }

    private func link(_ originalTransactionId: String, userId explicitUser: String?, appAccountToken: String?,
                      fact: AppleFact? = nil) throws {
        var userId = explicitUser
        if let token = appAccountToken, !token.isEmpty {
            try store.addToSet(StoreKeys.appAccountTokenTransactions(token), originalTransactionId)
            if userId == nil { userId = try user(ofAppAccountToken: token) }
        }
        guard let userId else { return }
        if try store.setIfAbsent(StoreKeys.owner(originalTransactionId), Array(userId.utf8), expiresIn: nil) {
            try store.addToSet(StoreKeys.userTransactions(userId), originalTransactionId)
            return
        }
        // Owned already: the app's transfer policy decides (keep-first: a different user is
        // not silently linked).
        let policy = transfers?.policy(bundleId: fact?.transaction?.bundleId) ?? .keepFirst
        switch policy.decide(owner: try owner(of: originalTransactionId), claimant: userId,
                             mayTransfer: explicitUser != nil || fact?.source == .ingest) {
        case .link:
            try store.addToSet(StoreKeys.userTransactions(userId), originalTransactionId)
        case .keep:
            return
        case .move(let from):
            if let transfers, let fact {
                try CustomerRepository(store: store).recordTransfer(
                    of: originalTransactionId, productId: fact.transaction?.productId, from: from, to: userId,
                    context: transfers, factId: fact.id)
            }
            try move(originalTransactionId, from: from, to: userId)
        }
    }

    // MARK: Moving and removing links (support operations)

    /// The user that owns a subscription, if any.
    public func owner(of originalTransactionId: String) throws -> String? {
        try store.get(StoreKeys.owner(originalTransactionId)).map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// Makes `userId` the subscription's owner in place of `previous` (nil: of nobody), and
    /// moves it between their sets. False, changing nothing, when another user owns it.
    /// Idempotent: once moved, moving again only finishes the sets.
    @discardableResult
    public func move(_ originalTransactionId: String, from previous: String?, to userId: String) throws -> Bool {
        let key = StoreKeys.owner(originalTransactionId)
        let stored = try store.get(key)
        let current = stored.map { String(decoding: $0.bytes, as: UTF8.self) }
        if current != userId {
            guard current == previous,
                  try store.compareAndSet(key, Array(userId.utf8), expectedVersion: stored?.version, expiresIn: nil) else { return false }
        }
        try store.addToSet(StoreKeys.userTransactions(userId), originalTransactionId)
        if let previous, previous != userId { try store.removeFromSet(StoreKeys.userTransactions(previous), originalTransactionId) }
        return true
    }

    /// Takes the subscription away from `userId`: its owner key (when it is still theirs) and
    /// its place in their set. The record stays, anonymous.
    public func unlink(_ originalTransactionId: String, fromUser userId: String) throws {
        let key = StoreKeys.owner(originalTransactionId)
        if try owner(of: originalTransactionId) == userId { try store.delete(key) }
        try store.removeFromSet(StoreKeys.userTransactions(userId), originalTransactionId)
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
        for originalTransactionId in try originalTransactionIds(ofAppAccountToken: token) {
            try move(originalTransactionId, from: previous, to: userId)
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
}
