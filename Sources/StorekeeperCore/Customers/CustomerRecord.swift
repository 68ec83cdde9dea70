/// What Storekeeper keeps about a user beyond their purchases, at `StoreKeys.customer`: the
/// grants support gave, and the timeline of what was done to the customer (grants, revoked
/// grants, transfers, merges, deletions), which is also the audit trail: each entry names
/// who did it, when and why. Written by compare-and-set, like every record.
public struct CustomerRecord: Codable, Sendable, Equatable {
    public var userId: String
    public var grants: [EntitlementGrant]
    /// Oldest first (`HistoryEntry.chronological`).
    public var history: [HistoryEntry]
    /// Anonymous ids merged into this one (`merge-customers`).
    public var aliases: [String]
    /// Set on an anonymous id once merged: the user it now belongs to.
    public var mergedInto: String?
    /// Set by `delete-customer` (milliseconds): the record is then a tombstone, without grants
    /// or personal data, keeping the audit trail of what support did.
    public var deletedAt: Int64?

    public init(userId: String, grants: [EntitlementGrant] = [], history: [HistoryEntry] = [],
                aliases: [String] = [], mergedInto: String? = nil, deletedAt: Int64? = nil) {
        self.userId = userId
        self.grants = grants
        self.history = history
        self.aliases = aliases
        self.mergedInto = mergedInto
        self.deletedAt = deletedAt
    }

    /// Adds an entry once: an operation retried after a crash records nothing twice.
    public mutating func record(_ entry: HistoryEntry) {
        guard !history.contains(where: { $0.id == entry.id }) else { return }
        history.append(entry)
        history.sort(by: HistoryEntry.chronological)
    }
}
