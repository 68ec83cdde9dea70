import FoundationEssentials

/// Finds one customer in the store by any id Apple or the app knows them by, and reads what
/// the customer answer is built from: every subscription of the user, every app (or, with no
/// user linked, the purchases asked about and those that carried the same appAccountToken),
/// and the user's customer record (grants, support operations).
public struct CustomerLookup {
    /// Who is asked about.
    public enum Key: Sendable, Equatable {
        case user(String)
        case appAccountToken(String)
        case originalTransactionId(String)
        /// Any transaction of a subscription: a renewal's, a crossgrade's.
        case transactionId(String)
        /// Apple's app-transaction id (RESCIND_CONSENT's only customer id).
        case appTransactionId(String)
    }

    private let repository: EntitlementRepository
    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
        repository = EntitlementRepository(store: store)
    }

    /// What the store holds about the customer; nil when nothing matches the key. `apps` are
    /// the bundle ids an original transaction id is looked for in (the request's, or every
    /// app of the catalog). A user counts as known when a purchase is linked to them or their
    /// customer record exists.
    public func source(of key: Key, apps: [String]) throws -> CustomerAnswer.Source? {
        var userId: String?
        var subscriptions: Set<SubscriptionRef>
        var tokens: [String] = []
        switch key {
        case .user(let user):
            userId = user
            subscriptions = Set(try repository.subscriptions(ofUser: user))
        case .appAccountToken(let token):
            tokens = [token]
            userId = try repository.user(ofAppAccountToken: token)
            subscriptions = Set(try repository.subscriptions(ofAppAccountToken: token))
        case .originalTransactionId(let id):
            subscriptions = Set(try apps.map { SubscriptionRef(bundleId: $0, originalTransactionId: id) }
                .filter { try repository.record($0) != nil })
        case .transactionId(let id):
            subscriptions = Set(try repository.subscriptions(ofTransaction: id, apps: apps))
        case .appTransactionId(let id):
            subscriptions = Set(try repository.subscriptions(ofAppTransaction: id))
        }
        // A purchase asked about by its ids answers its owner's whole customer.
        for subscription in subscriptions.sorted() where userId == nil {
            userId = try repository.owner(of: subscription)
        }
        if let userId { subscriptions.formUnion(try repository.subscriptions(ofUser: userId)) }
        let stored = try subscriptions.sorted().compactMap { subscription in
            try repository.record(subscription).map { CustomerAnswer.StoredRecord(bundleId: subscription.bundleId, record: $0) }
        }
        let customer = try userId.flatMap { try store.get(StoreKeys.customer($0), as: CustomerRecord.self) }
        let consumables = try userId.map { try repository.consumables(ofUser: $0) } ?? []
        guard !stored.isEmpty || !consumables.isEmpty || customer != nil || (userId != nil && !tokens.isEmpty) else { return nil }
        var source = CustomerAnswer.Source(userId: userId, appAccountTokens: tokens, stored: stored, customer: customer)
        source.consumables = consumables
        return source
    }
}
