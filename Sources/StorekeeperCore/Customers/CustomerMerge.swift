/// `merge-customers`: an anonymous user id (the app's id before sign-in) merged into an
/// identified one. The subscriptions, appAccountTokens and grants of `from` become `into`'s;
/// both timelines are kept (`into`'s gains `from`'s lines) and each gets a `MERGE` line.
///
/// Safe to kill and to repeat: `from` is marked merged first (so a rerun knows it is
/// finishing this merge, and no other merge of `from` can start), then `into` gains the
/// grants, the timeline and the alias, then `from`'s grants are cleared, then its tokens
/// and subscriptions move. Each step is idempotent.
public struct CustomerMerge {
    public struct Outcome: Encodable, Sendable, Equatable {
        public var from: String
        public var into: String
        public var subscriptionsMoved: Int
        public var appAccountTokensMoved: Int
        public var grantsMoved: Int
    }

    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    public func merge(_ from: String, into: String, by action: SupportAction) throws -> Outcome {
        guard from != into else { throw SupportError(.invalidRequest, "from and into are the same user") }
        let customers = CustomerRepository(store: store)
        try checkKnown(from, customers: customers)
        if let target = try customers.record(ofUser: into) {
            guard target.deletedAt == nil else { throw SupportError(.customerDeleted, "the customer \(into) was deleted") }
            if let other = target.mergedInto { throw SupportError(.alreadyMerged, "\(into) was merged into \(other)") }
        }
        let entry = action.entry(id: "merge:" + from + ":" + into, type: "MERGE", otherUserId: into)
        let source = try customers.update(userId: from) { record in
            guard record.deletedAt == nil else { throw SupportError(.customerDeleted, "the customer \(from) was deleted") }
            if let other = record.mergedInto, other != into { throw SupportError(.alreadyMerged, "\(from) was merged into \(other)") }
            record.mergedInto = into
            record.record(entry)
            return record
        }
        let grants = source.grants
        try customers.update(userId: into) { record in
            for grant in grants where !record.grants.contains(where: { $0.grantId == grant.grantId }) { record.grants.append(grant) }
            for line in source.history where line.id != entry.id { record.record(line) }
            var own = entry
            own.id = "merge:" + from + ":" + into + ":into"
            own.otherUserId = from
            record.record(own)
            if !record.aliases.contains(from) { record.aliases.append(from) }
        }
        try customers.update(userId: from) { $0.grants = [] }
        let entitlements = EntitlementRepository(store: store)
        let subscriptions = try entitlements.subscriptions(ofUser: from)
        let tokens = try moveTokens(from, into: into)
        try entitlements.moveConsumables(from: from, to: into)
        for subscription in subscriptions {
            try entitlements.move(subscription, from: from, to: into)
        }
        return Outcome(from: from, into: into, subscriptionsMoved: subscriptions.count, appAccountTokensMoved: tokens,
                       grantsMoved: grants.count)
    }

    /// Merging an id Storekeeper never saw is a mistake in the request, not a no-op.
    private func checkKnown(_ from: String, customers: CustomerRepository) throws {
        guard try customers.record(ofUser: from) == nil,
              try EntitlementRepository(store: store).subscriptions(ofUser: from).isEmpty,
              try AccountRepository(store: store, dataKey: nil).account(userId: from) == nil else { return }
        throw SupportError(.customerNotFound, "Storekeeper knows no user \(from)")
    }

    /// The tokens `from` holds, found through its account and the purchases linked to it.
    private func moveTokens(_ from: String, into: String) throws -> Int {
        let entitlements = EntitlementRepository(store: store)
        var tokens = Set<String>()
        if let account = try AccountRepository(store: store, dataKey: nil).account(userId: from) {
            tokens.insert(account.appAccountToken)
        }
        for subscription in try entitlements.subscriptions(ofUser: from) {
            let record = try entitlements.record(subscription)
            tokens.formUnion(record?.transactions.values.compactMap(\.appAccountToken) ?? [])
        }
        var moved = 0
        for token in tokens.sorted() where !token.isEmpty {
            if try entitlements.move(appAccountToken: token, from: from, to: into) { moved += 1 }
        }
        return moved
    }
}
