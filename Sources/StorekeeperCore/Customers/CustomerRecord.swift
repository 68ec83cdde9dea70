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
    /// The events of support's changes not yet in the event log (GRANT_ADDED, GRANT_REVOKED),
    /// written with the change (`EventRelay`).
    public var outbox: [Event] = []

    public init(userId: String, grants: [EntitlementGrant] = [], history: [HistoryEntry] = [],
                aliases: [String] = [], mergedInto: String? = nil, deletedAt: Int64? = nil) {
        self.userId = userId
        self.grants = grants
        self.history = history
        self.aliases = aliases
        self.mergedInto = mergedInto
        self.deletedAt = deletedAt
    }

    enum CodingKeys: String, CodingKey {
        case userId, grants, history, aliases, mergedInto, deletedAt, outbox
    }

    /// Records written before events decode with an empty outbox.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(userId: try container.decode(String.self, forKey: .userId),
                  grants: try container.decode([EntitlementGrant].self, forKey: .grants),
                  history: try container.decode([HistoryEntry].self, forKey: .history),
                  aliases: try container.decode([String].self, forKey: .aliases),
                  mergedInto: try container.decodeIfPresent(String.self, forKey: .mergedInto),
                  deletedAt: try container.decodeIfPresent(Int64.self, forKey: .deletedAt))
        outbox = try container.decodeIfPresent([Event].self, forKey: .outbox) ?? []
    }

    /// Adds an entry once: an operation retried after a crash records nothing twice.
    public mutating func record(_ entry: HistoryEntry) {
        guard !history.contains(where: { $0.id == entry.id }) else { return }
        history.append(entry)
        history.sort(by: HistoryEntry.chronological)
    }
}
