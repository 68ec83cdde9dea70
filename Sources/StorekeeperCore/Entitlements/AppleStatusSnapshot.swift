/// Apple's last good answer about one subscription, kept in its record and shown for eight
/// hours: while Apple is unreachable, `get-entitlements` can still say what Apple confirmed
/// and when.
public struct AppleStatusSnapshot: Codable, Sendable, Equatable {
    /// Apple's status number (1 active, 2 expired, 3 billing retry, 4 grace, 5 revoked).
    public var appleStatus: Int?
    /// The status Storekeeper derived after applying the answer.
    public var status: EntitlementStatus
    /// When Apple was asked (milliseconds).
    public var askedAt: Int64

    public init(appleStatus: Int?, status: EntitlementStatus, askedAt: Int64) {
        self.appleStatus = appleStatus
        self.status = status
        self.askedAt = askedAt
    }

    public static let lifetime: Duration = .seconds(8 * 3600)
}
