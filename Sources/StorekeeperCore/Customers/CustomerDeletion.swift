import FoundationEssentials

/// `delete-customer`: removes what ties a user to their purchases and every piece of their
/// personal data, and keeps the purchases themselves, anonymous, so revenue figures do not
/// change. What stays of the user is a tombstone (`CustomerRecord.deletedAt`) with the audit
/// trail and no grants.
///
/// Safe to kill and to repeat: the tombstone is written first, then the appAccountTokens are
/// released (found through the account and the linked purchases, both still there), then the
/// purchases unlinked, then the account deleted (`AccountRepository.delete`, itself safe to
/// repeat). A rerun finds whatever is left and finishes.
public struct CustomerDeletion {
    /// What was done, for the answer.
    public struct Outcome: Encodable, Sendable, Equatable {
        public var userId: String
        /// True when an earlier run had written the tombstone already.
        public var alreadyDeleted: Bool
        public var subscriptionsUnlinked: Int
        public var appAccountTokensReleased: Int
        public var accountDeleted: Bool
        public var sessionsEnded: Int
    }

    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    public func delete(userId: String, by action: SupportAction) throws -> Outcome {
        guard let reason = action.reason, !reason.isEmpty else { throw SupportError(.invalidRequest, "a deletion needs a reason") }
        let customers = CustomerRepository(store: store)
        let entitlements = EntitlementRepository(store: store)
        let accounts = AccountRepository(store: store, dataKey: nil)
        let account = try accounts.account(userId: userId)
        let subscriptions = try entitlements.subscriptions(ofUser: userId)
        let known = try customers.record(ofUser: userId)
        guard account != nil || !subscriptions.isEmpty || known != nil else {
            throw SupportError(.customerNotFound, "Storekeeper knows no user \(userId)")
        }
        let alreadyDeleted = try customers.update(userId: userId) { record in
            let already = record.deletedAt != nil
            record.deletedAt = record.deletedAt ?? action.date
            record.grants = []
            record.record(action.entry(id: "delete:" + userId, type: "CUSTOMER_DELETED"))
            return already
        }
        var tokens = Set(account.map { [$0.appAccountToken] } ?? [])
        for subscription in subscriptions {
            let record = try entitlements.record(subscription)
            tokens.formUnion(record?.transactions.values.compactMap(\.appAccountToken) ?? [])
        }
        var released = 0
        for token in tokens.sorted() where !token.isEmpty {
            if try entitlements.release(appAccountToken: token, ofUser: userId) { released += 1 }
        }
        for subscription in subscriptions {
            try entitlements.unlink(subscription, fromUser: userId)
        }
        try entitlements.unlinkConsumables(ofUser: userId)
        let deletion = try accounts.delete(userId: userId, sessions: SessionRepository(store: store),
                                           now: Date(millisecondsSince1970: action.date))
        return Outcome(userId: userId, alreadyDeleted: alreadyDeleted, subscriptionsUnlinked: subscriptions.count,
                       appAccountTokensReleased: released, accountDeleted: deletion.accountDeleted,
                       sessionsEnded: deletion.sessionsEnded)
    }
}
