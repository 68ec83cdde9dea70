import FoundationEssentials

/// What a migration may need to know beyond the store: the deployment's settings.
public struct StoreMigrationContext: Sendable {
    /// The app a store from before several apps (layout 1) belongs to: `APPSTORE_BUNDLE_ID`,
    /// or the first app of the catalog; nil when neither names one. Asked only when there is
    /// something to migrate, so an up-to-date store costs no reading of settings.
    public var legacyBundleId: @Sendable () -> String?

    public init(legacyBundleId: @escaping @Sendable () -> String?) {
        self.legacyBundleId = legacyBundleId
    }

    public init(legacyBundleId: String?) {
        self.legacyBundleId = { legacyBundleId }
    }
}

/// One step of the store's layout, from version `from` to `from + 1`. It must be safe to
/// run twice and to run while other processes use the store (a process killed half way runs
/// it again), and harmless on an empty store.
struct StoreMigration: Sendable {
    let from: Int
    /// What it changes, for the reader of this list.
    let summary: String
    let run: @Sendable (any KeyValueStore, StoreMigrationContext) throws(StoreError) -> Void
}

/// Every layout migration, in one place, oldest first. A change to `StoreKeys` or to a
/// record's spelling adds its step here and raises `StoreLayout.currentVersion`.
enum StoreMigrations {
    static let all: [StoreMigration] = [
        StoreMigration(from: 1, summary: "records carry their app: entitlement, owner and migration-audit keys move under "
                       + "appstore:app:<bundleId>:, and the sets of subscriptions hold <bundleId>/<originalTransactionId>",
                       run: RecordsCarryTheirApp.run),
        StoreMigration(from: 2, summary: "records keep a timeline and the customer's facts (decoded from older ones as they "
                       + "are); every stored transaction id and app-transaction id is indexed (appstore:transaction:, "
                       + "appstore:apptransaction:) so get-customer finds its subscription",
                       run: TransactionsAreIndexed.run),
    ]
}

/// Layout 2 → 3: indexes what records already hold, as every entitlement write now does. Only
/// adds set members, so it is safe to rerun and to run beside writers.
enum TransactionsAreIndexed {
    static func run(_ store: any KeyValueStore, _ context: StoreMigrationContext) throws(StoreError) {
        for member in try store.setMembers(StoreKeys.subscriptionIndex) {
            guard let subscription = SubscriptionRef(member: member),
                  let record = try store.get(StoreKeys.entitlement(subscription), as: EntitlementRecord.self) else { continue }
            for transaction in record.transactions.values {
                _ = try store.addToSet(StoreKeys.transaction(transaction.transactionId), member)
                if let appTransactionId = transaction.appTransactionId, !appTransactionId.isEmpty {
                    _ = try store.addToSet(StoreKeys.appTransaction(appTransactionId), member)
                }
            }
        }
    }
}

/// Layout 1 → 2. Each subscription is copied before its old keys go, never over a newer copy
/// (`setIfAbsent`), so a run killed anywhere, or two runs at once, leave every record once.
enum RecordsCarryTheirApp {
    static func run(_ store: any KeyValueStore, _ context: StoreMigrationContext) throws(StoreError) {
        let legacyIds = try store.setMembers(StoreKeys.LayoutV1.entitlementIndex)
        guard !legacyIds.isEmpty else { return }
        guard let bundleId = context.legacyBundleId() else {
            throw StoreError(.invalidConfiguration, "the store was written for one app before several apps were supported; "
                             + "set APPSTORE_BUNDLE_ID, or list that app first in the catalog, so its records can be moved")
        }
        for originalTransactionId in legacyIds {
            try move(SubscriptionRef(bundleId: bundleId, originalTransactionId: originalTransactionId), in: store)
        }
        try empty(StoreKeys.LayoutV1.entitlementIndex, in: store)
    }

    /// Removes a set member by member: `delete` is for values, and stores keep sets apart.
    private static func empty(_ set: String, in store: any KeyValueStore) throws(StoreError) {
        for member in try store.setMembers(set) { _ = try store.removeFromSet(set, member) }
    }

    private static func move(_ subscription: SubscriptionRef, in store: any KeyValueStore) throws(StoreError) {
        let id = subscription.originalTransactionId
        // The index first, as every write of a record does.
        _ = try store.addToSet(StoreKeys.subscriptionIndex, subscription.member)
        if let record = try store.get(StoreKeys.LayoutV1.entitlement(id)) {
            _ = try store.setIfAbsent(StoreKeys.entitlement(subscription), record.bytes, expiresIn: nil)
            for token in appAccountTokens(record.bytes) {
                _ = try store.addToSet(StoreKeys.appAccountTokenSubscriptions(token), subscription.member)
                try empty(StoreKeys.LayoutV1.appAccountTokenTransactions(token), in: store)
            }
        }
        if let owner = try store.get(StoreKeys.LayoutV1.owner(id)) {
            let userId = String(decoding: owner.bytes, as: UTF8.self)
            _ = try store.setIfAbsent(StoreKeys.owner(subscription), owner.bytes, expiresIn: nil)
            _ = try store.addToSet(StoreKeys.userSubscriptions(userId), subscription.member)
            // Every subscription in a legacy user set has this user as its owner (linking adds
            // only owned ones), so the set is rebuilt from the owners and can go.
            try empty(StoreKeys.LayoutV1.userTransactions(userId), in: store)
        }
        if let audit = try store.get(StoreKeys.LayoutV1.receiptMigration(id)) {
            _ = try store.setIfAbsent(StoreKeys.receiptMigration(subscription), audit.bytes, expiresIn: nil)
            _ = try store.delete(StoreKeys.LayoutV1.receiptMigration(id))
        }
        _ = try store.delete(StoreKeys.LayoutV1.owner(id))
        _ = try store.delete(StoreKeys.LayoutV1.entitlement(id))
    }

    /// The appAccountTokens a legacy record's transactions carried: their subscription joins
    /// each token's set, as linking would have added it.
    private static func appAccountTokens(_ bytes: [UInt8]) -> Set<String> {
        guard let record = try? JSONDecoder().decode(EntitlementRecord.self, from: Data(bytes)) else { return [] }
        return Set(record.transactions.values.compactMap(\.appAccountToken).filter { !$0.isEmpty })
    }
}
