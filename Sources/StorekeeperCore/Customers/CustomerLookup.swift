import FoundationEssentials

/// Finds one customer in the store by any id Apple or the app knows them by, and reads what
/// the customer answer is built from: every subscription of the user (or, with no user
/// linked, the purchase asked about and those that carried the same appAccountToken).
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

    public init(repository: EntitlementRepository) {
        self.repository = repository
    }

    /// What the store holds about the customer; nil when nothing matches the key. A user
    /// counts as known when a purchase is linked to them or their customer record exists.
    public func source(of key: Key, customer: (String) throws -> CustomerRecord?) throws -> CustomerAnswer.Source? {
        var userId: String?
        var ids: Set<String>
        var tokens: [String] = []
        switch key {
        case .user(let user):
            userId = user
            ids = Set(try repository.originalTransactionIds(ofUser: user))
        case .appAccountToken(let token):
            tokens = [token]
            userId = try repository.user(ofAppAccountToken: token)
            ids = Set(try repository.originalTransactionIds(ofAppAccountToken: token))
        case .originalTransactionId(let id):
            ids = try repository.record(id) == nil ? [] : [id]
        case .transactionId(let id):
            ids = Set(try repository.originalTransactionId(ofTransaction: id).map { [$0] } ?? [])
        case .appTransactionId(let id):
            ids = Set(try repository.originalTransactionIds(ofAppTransaction: id))
        }
        // A purchase asked about by its ids answers its owner's whole customer.
        for id in ids.sorted() where userId == nil {
            userId = try repository.user(ofSubscription: id)
        }
        if let userId { ids.formUnion(try repository.originalTransactionIds(ofUser: userId)) }
        let records = try ids.sorted().compactMap { try repository.record($0) }
        let record = try userId.flatMap(customer)
        guard !records.isEmpty || record != nil || (userId != nil && !tokens.isEmpty) else { return nil }
        return CustomerAnswer.Source(userId: userId, appAccountTokens: tokens, records: records, customer: record)
    }
}
