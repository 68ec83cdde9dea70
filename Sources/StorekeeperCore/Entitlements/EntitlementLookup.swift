import FoundationEssentials

/// What a user may use now: every entitlement found by a user id, an appAccountToken or one
/// original transaction id, and one boolean, `active`, for them all.
public struct EntitlementLookup {
    /// Who (or what) is asked about.
    public enum Key: Sendable, Equatable {
        case user(String)
        /// The user it was handed to, with their subscriptions, and those that carried it
        /// before the user was known.
        case appAccountToken(String)
        case originalTransactionId(String)
    }

    /// What `get-entitlements` answers.
    public struct Answer: Encodable, Sendable, Equatable {
        /// The user asked about, or the appAccountToken's owner; nil for an original transaction id.
        public var userId: String?
        /// Whether any of the entitlements grants access now.
        public var active: Bool
        public var entitlements: [Entitlement]
    }

    private let repository: EntitlementRepository

    public init(repository: EntitlementRepository) {
        self.repository = repository
    }

    /// An unknown user or token has no entitlements: that is an answer, not an error.
    public func entitlements(of key: Key, now: Date) throws -> Answer {
        var userId: String?
        var ids: [String]
        switch key {
        case .user(let user):
            userId = user
            ids = try repository.originalTransactionIds(ofUser: user)
        case .appAccountToken(let token):
            ids = try repository.originalTransactionIds(ofAppAccountToken: token)
            userId = try repository.user(ofAppAccountToken: token)
            if let userId { ids += try repository.originalTransactionIds(ofUser: userId) }
        case .originalTransactionId(let id):
            ids = [id]
        }
        let entitlements = try repository.entitlements(of: ids, now: now)
        return Answer(userId: userId, active: entitlements.contains { $0.active }, entitlements: entitlements)
    }
}
