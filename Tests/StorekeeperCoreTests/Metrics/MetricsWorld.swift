import Foundation
import StorekeeperCore
import StorekeeperTesting

/// An event log written by hand, each event carrying the customer state the relay would
/// attach (only what the metrics read of it), for the aggregator's tests.
struct MetricsWorld {
    static let day: Int64 = 86_400_000
    /// 2026-06-01T00:00:00Z.
    static let start: Int64 = 1_780_272_000_000
    static let appA = "com.example.a"
    static let appB = "com.example.b"

    let store: any KeyValueStore
    private(set) var appended = 0

    init(store: any KeyValueStore = MemoryStore()) {
        self.store = store
    }

    /// One subscription as get-customer answers it under `subscriptions`.
    static func subscription(_ originalTransactionId: String, app: String = appA, environment: String = "Production",
                             product: String = "pro.monthly", status: String, willRenew: Bool = true,
                             periodType: String = "normal", price: Int64? = 9990, currency: String = "USD",
                             periodMilliseconds: Int64 = 30 * day, entitlements: [String] = ["pro"]) -> JSONValue {
        var latest: [String: JSONValue] = ["currency": .string(currency), "purchaseDate": .number(Double(start)),
                                           "expiresDate": .number(Double(start + periodMilliseconds))]
        if let price { latest["price"] = .number(Double(price)) }
        return .object([
            "originalTransactionId": .string(originalTransactionId), "bundleId": .string(app), "productId": .string(product),
            "status": .string(status), "willRenew": .bool(willRenew), "periodType": .string(periodType),
            "environment": .string(environment), "entitlements": .array(entitlements.map(JSONValue.string)),
            "transactions": .array([.object(latest)]),
        ])
    }

    /// Appends an event of `type` whose customer holds `subscriptions` (by product id).
    mutating func append(_ type: EventType, at occurredAt: Int64 = start, app: String? = appA, environment: String? = "Production",
                         customer: String = "user-1", subscriptions: [JSONValue] = []) throws {
        appended += 1
        var byProduct: [String: JSONValue] = [:]
        for subscription in subscriptions {
            guard case .object(let fields) = subscription, case .string(let product)? = fields["productId"] else { continue }
            byProduct[product] = subscription
        }
        let event = Event(id: "evt-\(appended)", type: type.rawValue, occurredAt: occurredAt, recordedAt: occurredAt,
                          app: app, environment: environment, customerId: customer, userId: customer, source: "notification",
                          customer: .object(["customerId": .string(customer), "subscriptions": .object(byProduct),
                                             "version": .number(Double(appended))]))
        _ = try store.appendToLog(StoreKeys.eventLog, LogAppend(id: event.id, stream: nil, expectedStreamVersion: 0,
                                                                recordedAt: occurredAt, bytes: try event.encoded()))
    }

    func shard(_ app: String = appA, _ environment: String = "Production") throws -> MetricsShard? {
        try store.get(StoreKeys.metricsShard(MetricsShardID(app: app, environment: environment)), as: MetricsShard.self)
    }

    func catchUp(step: Int = 1_000, now: Int64 = start + 10 * day) throws {
        let aggregator = MetricsAggregator(store: store)
        while try !aggregator.catchUp(maxEvents: step, now: now).caughtUp {}
    }

    /// A story over two apps and both environments: every event type the metrics count,
    /// trials, conversions, grace, billing retry, auto-renew off, churn, refunds.
    mutating func playStory() throws {
        typealias W = MetricsWorld
        let d = W.day
        try append(.initialPurchase, at: W.start, customer: "u1",
                   subscriptions: [W.subscription("1", status: "active", periodType: "trial", price: 0)])
        try append(.initialPurchase, at: W.start, customer: "u2", subscriptions: [W.subscription("2", status: "active")])
        try append(.initialPurchase, at: W.start + d, customer: "u3",
                   subscriptions: [W.subscription("3", product: "pro.yearly", status: "active", price: 99990, currency: "EUR",
                                                  periodMilliseconds: 365 * d)])
        try append(.renewal, at: W.start + 2 * d, customer: "u1", subscriptions: [W.subscription("1", status: "active")])
        try append(.cancellation, at: W.start + 2 * d, customer: "u2",
                   subscriptions: [W.subscription("2", status: "active", willRenew: false)])
        try append(.expiration, at: W.start + 3 * d, customer: "u2",
                   subscriptions: [W.subscription("2", status: "expired", willRenew: false)])
        try append(.gracePeriod, at: W.start + 3 * d, customer: "u3",
                   subscriptions: [W.subscription("3", product: "pro.yearly", status: "grace", price: 99990, currency: "EUR",
                                                  periodMilliseconds: 365 * d)])
        try append(.consumptionRequest, at: W.start + 4 * d, customer: "u1", subscriptions: [W.subscription("1", status: "active")])
        try append(.refund, at: W.start + 4 * d, customer: "u1", subscriptions: [W.subscription("1", status: "refunded")])
        try append(.refundDeclined, at: W.start + 4 * d, customer: "u3",
                   subscriptions: [W.subscription("3", product: "pro.yearly", status: "billing_retry", price: 99990,
                                                  currency: "EUR", periodMilliseconds: 365 * d)])
        try append(.initialPurchase, at: W.start + 5 * d, app: W.appB, environment: "Sandbox", customer: "u4",
                   subscriptions: [W.subscription("4", app: W.appB, environment: "Sandbox", product: "b.weekly", status: "active",
                                                  price: 1990, periodMilliseconds: 3 * 60_000, entitlements: ["plus"])])
        try append(.grantAdded, at: W.start + 5 * d, app: W.appB, environment: nil, customer: "u4",
                   subscriptions: [W.subscription("4", app: W.appB, environment: "Sandbox", product: "b.weekly", status: "active",
                                                  price: 1990, periodMilliseconds: 3 * 60_000, entitlements: ["plus"])])
    }
}
