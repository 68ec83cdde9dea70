/// One line of a customer's timeline, as `get-customer` answers it in `history`: something
/// that happened to one of the customer's purchases (an applied notification, an ingested
/// transaction, a reconciliation correction, a migration, an import) or to the customer
/// (a grant, a revoked grant, a transfer, a merge, a deletion). Recorded even when no status
/// changed; recorded once (`id` is unique per happening, so a redelivered notification adds
/// nothing).
public struct HistoryEntry: Codable, Sendable, Equatable, Hashable {
    /// What happened, for deduplication: the notificationUUID, the fact's id, or the support
    /// operation's id.
    public var id: String
    /// When, in milliseconds since 1970: Apple's signed time for Apple's facts, the clock's
    /// for support operations.
    public var date: Int64
    /// Apple's notificationType, or for other sources what happened: `TRANSACTION`,
    /// `RECONCILIATION`, `MIGRATION`, `IMPORT`, `GRANT_ADDED`, `GRANT_REVOKED`, `TRANSFER`,
    /// `MERGE`, `CUSTOMER_DELETED`.
    public var type: String
    public var subtype: String?
    public var productId: String?
    public var transactionId: String?
    /// How it reached Storekeeper: `notification`, `ingest`, `reconciliation`, `migration`,
    /// `import`, `support`.
    public var source: String
    /// For support operations: who did it (the token's name) and why (the audit trail).
    public var actor: String?
    public var reason: String?
    /// For grants and transfers: which entitlement, and the other user of a transfer or merge.
    public var entitlement: String?
    public var otherUserId: String?

    public init(id: String, date: Int64, type: String, subtype: String? = nil, productId: String? = nil,
                transactionId: String? = nil, source: String, actor: String? = nil, reason: String? = nil,
                entitlement: String? = nil, otherUserId: String? = nil) {
        self.id = id
        self.date = date
        self.type = type
        self.subtype = subtype
        self.productId = productId
        self.transactionId = transactionId
        self.source = source
        self.actor = actor
        self.reason = reason
        self.entitlement = entitlement
        self.otherUserId = otherUserId
    }

    /// Oldest first; for the same instant by id, so the order never depends on arrival.
    public static func chronological(_ lhs: HistoryEntry, _ rhs: HistoryEntry) -> Bool {
        lhs.date != rhs.date ? lhs.date < rhs.date : lhs.id < rhs.id
    }
}

/// An entitlement given by support rather than bought: until a date, with a reason. It shows
/// in `get-customer` with `grantedBy: "grant"`.
public struct EntitlementGrant: Codable, Sendable, Equatable, Hashable {
    /// Unique; what `revoke-grant` names.
    public var grantId: String
    public var entitlement: String
    /// The app it is for; nil for every app of the deployment.
    public var bundleId: String?
    public var grantedAt: Int64
    /// Milliseconds; nil for a grant without end.
    public var expiresDate: Int64?
    public var reason: String
    /// The token's name that granted it.
    public var grantedBy: String
    /// Set by `revoke-grant`: a revoked grant stays in the record for the audit trail.
    public var revokedAt: Int64?

    public init(grantId: String, entitlement: String, bundleId: String?, grantedAt: Int64, expiresDate: Int64?,
                reason: String, grantedBy: String, revokedAt: Int64? = nil) {
        self.grantId = grantId
        self.entitlement = entitlement
        self.bundleId = bundleId
        self.grantedAt = grantedAt
        self.expiresDate = expiresDate
        self.reason = reason
        self.grantedBy = grantedBy
        self.revokedAt = revokedAt
    }

    /// Whether it gives its entitlement at `now` (milliseconds).
    public func isActive(at now: Int64) -> Bool {
        revokedAt == nil && grantedAt <= now && (expiresDate.map { $0 > now } ?? true)
    }
}
