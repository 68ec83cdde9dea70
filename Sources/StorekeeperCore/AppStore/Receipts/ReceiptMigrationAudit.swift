import FoundationEssentials

/// The dual track of a migration, per subscription: what the legacy verifyReceipt fields say
/// and what the entitlement says after Apple's App Store Server API answers were applied,
/// side by side, kept in the store (`appstore:migration:<originalTransactionId>`, no expiry:
/// it is the migration's audit) and reported when they disagree.
public struct ReceiptMigrationAudit: Codable, Sendable, Equatable {
    public var originalTransactionId: String
    /// `LegacySubscriptionStatus.State`'s name.
    public var legacyStatus: String
    /// `EntitlementStatus`'s name; nil when the new track has no entitlement for the id.
    public var newStatus: String?
    public var agree: Bool
    /// Milliseconds since 1970.
    public var recordedAt: Int64
    /// The receipt's environment.
    public var environment: String

    public init(originalTransactionId: String, legacyStatus: String, newStatus: String?, recordedAt: Int64, environment: String) {
        self.originalTransactionId = originalTransactionId
        self.legacyStatus = legacyStatus
        self.newStatus = newStatus
        self.agree = Self.agree(legacy: legacyStatus, new: newStatus)
        self.recordedAt = recordedAt
        self.environment = environment
    }

    /// The two tracks name states alike; the new one knows two the old cannot tell apart:
    /// a non-consumable is `lifetime` (legacy: active), a Family Sharing revocation is
    /// `revoked` (legacy: refunded).
    public static func agree(legacy: String, new: String?) -> Bool {
        guard let new else { return false }
        switch (legacy, new) {
        case ("active", "lifetime"), ("refunded", "revoked"): return true
        default: return legacy == new
        }
    }

    /// One record per subscription the legacy track knows, sorted by id.
    public static func compare(legacy: [LegacySubscriptionStatus], outcome: ReceiptMigrationOutcome,
                               environment: String, now: Date) -> [ReceiptMigrationAudit] {
        legacy.sorted { $0.originalTransactionId < $1.originalTransactionId }.map { old in
            ReceiptMigrationAudit(
                originalTransactionId: old.originalTransactionId, legacyStatus: old.state.rawValue,
                newStatus: outcome.subscription(old.originalTransactionId)?.status,
                recordedAt: now.millisecondsSince1970, environment: environment)
        }
    }

    /// Writes the record (the latest comparison replaces an earlier one).
    public func save(of bundleId: String, in store: any KeyValueStore) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Strings, numbers and booleans only: encoding cannot fail.
        let bytes = (try? encoder.encode(self)).map(Array.init) ?? []
        try store.set(StoreKeys.receiptMigration(SubscriptionRef(bundleId: bundleId, originalTransactionId: originalTransactionId)),
                      bytes, expiresIn: nil)
    }

    public static func load(_ subscription: SubscriptionRef, from store: any KeyValueStore) throws(StoreError) -> ReceiptMigrationAudit? {
        guard let stored = try store.get(StoreKeys.receiptMigration(subscription)) else { return nil }
        return try? JSONDecoder().decode(ReceiptMigrationAudit.self, from: Data(stored.bytes))
    }
}
