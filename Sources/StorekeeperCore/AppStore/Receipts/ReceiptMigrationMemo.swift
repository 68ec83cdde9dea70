import FoundationEssentials

/// That a migration of an original transaction id finished lately (`appstore:migrated:<id>`,
/// 24 h), and what failed about it, if anything.
///
/// `migrate-receipt` is public: anyone holding a valid receipt could otherwise make Apple
/// answer the same questions again and again, spending the account's API quota. While every
/// id of a receipt has a memo, an anonymous request is answered from the store instead
/// (`storedOutcome`): Apple's answers were applied then, and notifications keep the
/// entitlements current since.
public struct ReceiptMigrationMemo: Codable, Sendable, Equatable {
    /// Why Apple's answer about the id was not applied, as the migration reported it.
    public var failure: String?
    /// Milliseconds since 1970.
    public var migratedAt: Int64

    public static let lifetime: Duration = .seconds(24 * 3600)

    public init(failure: String?, migratedAt: Int64) {
        self.failure = failure
        self.migratedAt = migratedAt
    }

    /// Writes a memo for every id of a migration that finished (not for one Apple stopped part way).
    public static func record(_ outcome: ReceiptMigrationOutcome, of bundleId: String, now: Date,
                              in store: any KeyValueStore) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for subscription in outcome.subscriptions {
            let memo = ReceiptMigrationMemo(failure: subscription.failure, migratedAt: now.millisecondsSince1970)
            // An optional string and a number: encoding cannot fail.
            let bytes = (try? encoder.encode(memo)).map(Array.init) ?? []
            let key = StoreKeys.receiptMigrated(SubscriptionRef(bundleId: bundleId, originalTransactionId: subscription.originalTransactionId))
            try store.set(key, bytes, expiresIn: lifetime)
        }
    }

    /// The answer a migration of `receipt` would give, from the store, when every id of the
    /// receipt was migrated in the last 24 h; nil otherwise (then Apple is asked).
    ///
    /// Only the receipt's own ids are answered, with their entitlement's product and status:
    /// the caller holds a receipt Apple signed, so that much is theirs. Nothing about users
    /// (`linkedToUser` is absent), nor the customer's other purchases a live migration would
    /// find in Apple's history.
    public static func storedOutcome(for receipt: AppReceipt, now: Date, store: any KeyValueStore) throws -> ReceiptMigrationOutcome? {
        let ids = receipt.originalTransactionIds
        guard !ids.isEmpty else { return nil }
        var memos: [String: ReceiptMigrationMemo] = [:]
        for id in ids {
            guard let stored = try store.get(StoreKeys.receiptMigrated(SubscriptionRef(bundleId: receipt.bundleId, originalTransactionId: id))),
                  let memo = try? JSONDecoder().decode(ReceiptMigrationMemo.self, from: Data(stored.bytes))
            else { return nil }
            memos[id] = memo
        }
        let repository = EntitlementRepository(store: store)
        let subscriptions = try ids.map { id -> ReceiptMigrationOutcome.Subscription in
            let subscription = SubscriptionRef(bundleId: receipt.bundleId, originalTransactionId: id)
            let entitlement = try repository.record(subscription).map { Entitlement($0, now: now) }
            let status = entitlement?.status.rawValue
            return ReceiptMigrationOutcome.Subscription(
                originalTransactionId: id, productId: entitlement?.productId, status: status, statusBefore: status,
                inReceipt: true, eventsApplied: 0, linkedToUser: nil, appAccountTokenSet: false, failure: memos[id]?.failure)
        }
        return ReceiptMigrationOutcome(subscriptions: subscriptions, appleRequests: 0)
    }
}
