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
        /// One original transaction id, looked up in each of these apps (an id is one app's;
        /// test environments may hand out the same small ids in two apps).
        case originalTransactionId(String, bundleIds: [String])
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
    /// With `catalog`, each entitlement is decided as get-customer decides it.
    public func entitlements(of key: Key, now: Date, catalog: Catalog? = nil) throws -> Answer {
        var userId: String?
        var subscriptions: [SubscriptionRef]
        switch key {
        case .user(let user):
            userId = user
            subscriptions = try repository.subscriptions(ofUser: user)
        case .appAccountToken(let token):
            subscriptions = try repository.subscriptions(ofAppAccountToken: token)
            userId = try repository.user(ofAppAccountToken: token)
            if let userId { subscriptions += try repository.subscriptions(ofUser: userId) }
        case .originalTransactionId(let id, let bundleIds):
            subscriptions = bundleIds.map { SubscriptionRef(bundleId: $0, originalTransactionId: id) }
        }
        let entitlements = try repository.entitlements(of: subscriptions, now: now, catalog: catalog)
        return Answer(userId: userId, active: entitlements.contains { $0.active }, entitlements: entitlements)
    }
}
