/// One customer, as `get-customer` answers it (and `my-entitlements` for the signed-in user
/// itself): the entitlements by name, every purchase with its facts, and the timeline.
///
/// Built by one function, `init(of:catalog:now:)`, from the customer's stored records,
/// their `CustomerRecord` (grants, support operations) and the catalog, so every answer that
/// speaks of entitlements agrees.
public struct CustomerAnswer: Encodable, Sendable, Equatable {
    /// Timeline entries answered unless the caller asks for more (`historyLimit`).
    public static let defaultHistoryLimit = 100

    /// One stored record and the app it is stored under (nil: the record's own transaction
    /// says, or the only app).
    public struct StoredRecord: Sendable {
        public var bundleId: String?
        public var record: EntitlementRecord

        public init(bundleId: String?, record: EntitlementRecord) {
            self.bundleId = bundleId
            self.record = record
        }
    }

    /// What the answer is built from: what the store holds about one customer.
    public struct Source: Sendable {
        /// nil when no user is linked (asked by a purchase nobody claimed).
        public var userId: String?
        public var appAccountTokens: [String]
        public var records: [StoredRecord]
        public var customer: CustomerRecord?
        /// Consumable purchases: they grant nothing and are listed in `nonSubscriptions`.
        public var consumables: [TransactionFacts] = []
        /// Only this app's purchases and grants; nil for every app.
        public var bundleId: String?
        public var historyLimit: Int

        public init(userId: String?, appAccountTokens: [String] = [], records: [EntitlementRecord],
                    customer: CustomerRecord? = nil, bundleId: String? = nil, historyLimit: Int = CustomerAnswer.defaultHistoryLimit) {
            self.userId = userId
            self.appAccountTokens = appAccountTokens
            self.records = records.map { StoredRecord(bundleId: nil, record: $0) }
            self.customer = customer
            self.bundleId = bundleId
            self.historyLimit = historyLimit
        }

        public init(userId: String?, appAccountTokens: [String], stored: [StoredRecord], customer: CustomerRecord?) {
            self.init(userId: userId, appAccountTokens: appAccountTokens, records: [], customer: customer)
            records = stored
        }
    }

    public var userId: String?
    /// Sorted: the tokens the customer's purchases carried, and any the caller named.
    public var appAccountTokens: [String]
    /// By entitlement name: every entitlement a purchase or grant of the customer gives,
    /// active or not.
    public var entitlements: [String: CustomerEntitlement]
    /// Auto-renewable subscriptions by product id (the latest purchase of a product when
    /// there are several).
    public var subscriptions: [String: CustomerSubscription]
    /// Oldest first.
    public var nonSubscriptions: [NonSubscriptionPurchase]
    /// Oldest first, the last `historyLimit` entries.
    public var history: [HistoryEntry]

    /// The answer at `now` (milliseconds).
    public init(of source: Source, catalog: Catalog, now: Int64) {
        let purchases = source.records
            .compactMap { CustomerPurchase($0.record, storedUnder: $0.bundleId, catalog: catalog, now: now) }
            .filter { source.bundleId == nil || $0.bundleId == source.bundleId }
            .sorted { $1.latest.isLaterPeriod(than: $0.latest) }
        let grants = (source.customer?.grants ?? []).filter {
            source.bundleId == nil || $0.bundleId == nil || $0.bundleId == source.bundleId
        }
        userId = source.userId
        let tokens = purchases.flatMap { $0.record.transactions.values.compactMap(\.appAccountToken) }
        appAccountTokens = Set((tokens + source.appAccountTokens).map { $0.lowercased() }).sorted()
        entitlements = Self.entitlements(purchases: purchases, grants: grants, now: now)
        var subscriptions: [String: CustomerSubscription] = [:]
        for purchase in purchases where purchase.isSubscription {
            // Oldest first, so the latest purchase of a product is the one kept.
            subscriptions[purchase.latest.productId ?? purchase.record.originalTransactionId] = CustomerSubscription(purchase)
        }
        self.subscriptions = subscriptions
        let consumables = source.consumables.filter { source.bundleId == nil || $0.bundleId == source.bundleId }
        nonSubscriptions = (purchases.filter { !$0.isSubscription }.flatMap { purchase in
            purchase.record.transactions.values.map { NonSubscriptionPurchase(purchase, transaction: $0) }
        } + consumables.map(NonSubscriptionPurchase.init(consumable:)))
            .sorted { ($0.purchaseDate ?? .min, $0.transactionId) < ($1.purchaseDate ?? .min, $1.transactionId) }
        history = Self.history(purchases.flatMap(\.record.history) + (source.customer?.history ?? []),
                               limit: source.historyLimit)
    }

    /// Each entitlement from every candidate that gives it, described by the one that decides.
    static func entitlements(purchases: [CustomerPurchase], grants: [EntitlementGrant], now: Int64) -> [String: CustomerEntitlement] {
        var candidates: [String: [CustomerEntitlement]] = [:]
        for purchase in purchases {
            for name in purchase.entitlements { candidates[name, default: []].append(CustomerEntitlement(purchase)) }
        }
        for grant in grants {
            candidates[grant.entitlement, default: []].append(CustomerEntitlement(grant, now: now))
        }
        return candidates.compactMapValues { $0.max { CustomerEntitlement.decides($1, over: $0) } }
    }

    /// Every entry once, oldest first, the newest `limit` of them.
    static func history(_ entries: [HistoryEntry], limit: Int) -> [HistoryEntry] {
        var seen = Set<String>()
        let unique = entries.sorted(by: HistoryEntry.chronological).filter { seen.insert($0.id).inserted }
        return Array(unique.suffix(max(limit, 0)))
    }

    enum CodingKeys: String, CodingKey {
        case userId, appAccountTokens, entitlements, subscriptions, nonSubscriptions, history
    }

    /// `userId` is null, not absent, when no user is linked.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userId, forKey: .userId)
        try container.encode(appAccountTokens, forKey: .appAccountTokens)
        try container.encode(entitlements, forKey: .entitlements)
        try container.encode(subscriptions, forKey: .subscriptions)
        try container.encode(nonSubscriptions, forKey: .nonSubscriptions)
        try container.encode(history.map(HistoryLine.init), forKey: .history)
    }
}

/// A timeline entry as answered: the fields always (null when unknown), the support
/// operation's (`actor`, `reason`, `entitlement`, `otherUserId`) when it has them.
struct HistoryLine: Encodable {
    let entry: HistoryEntry

    init(_ entry: HistoryEntry) {
        self.entry = entry
    }

    enum CodingKeys: String, CodingKey {
        case id, date, type, subtype, productId, transactionId, source, actor, reason, entitlement, otherUserId
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entry.id, forKey: .id)
        try container.encode(entry.date, forKey: .date)
        try container.encode(entry.type, forKey: .type)
        try container.encode(entry.subtype, forKey: .subtype)
        try container.encode(entry.productId, forKey: .productId)
        try container.encode(entry.transactionId, forKey: .transactionId)
        try container.encode(entry.source, forKey: .source)
        try container.encodeIfPresent(entry.actor, forKey: .actor)
        try container.encodeIfPresent(entry.reason, forKey: .reason)
        try container.encodeIfPresent(entry.entitlement, forKey: .entitlement)
        try container.encodeIfPresent(entry.otherUserId, forKey: .otherUserId)
    }
}
