/// Reading a subscription's metrics state from an event's `customer`, the subscription as
/// get-customer answers it (`CustomerSubscription`'s fields).
extension MetricsSubscriptionState {
    /// One subscription of an event's customer, with where it is counted.
    public struct Seen: Sendable, Equatable {
        public var shard: MetricsShardID
        public var originalTransactionId: String
        public var state: MetricsSubscriptionState
    }

    /// Every auto-renewable subscription the customer state lists that names its app and
    /// original transaction id.
    public static func seen(in customer: JSONValue?, app fallbackApp: String?) -> [Seen] {
        guard case .object(let fields)? = customer, case .object(let subscriptions)? = fields["subscriptions"] else { return [] }
        return subscriptions.keys.sorted().compactMap { key -> Seen? in
            guard case .object(let subscription)? = subscriptions[key],
                  let originalTransactionId = subscription["originalTransactionId"]?.text else { return nil }
            let app = subscription["bundleId"]?.text ?? fallbackApp
            let shard = MetricsShardID(app: app, environment: subscription["environment"]?.text)
            return Seen(shard: shard, originalTransactionId: originalTransactionId, state: state(of: subscription))
        }
    }

    static func state(of subscription: [String: JSONValue]) -> MetricsSubscriptionState {
        let willRenew = subscription["willRenew"]?.flag ?? false
        let trial = subscription["periodType"]?.text == "trial"
        let status: MetricsStatus?
        switch subscription["status"]?.text {
        case "active": status = !willRenew ? .autoRenewOff : trial ? .trial : .active
        case "grace": status = .gracePeriod
        case "billing_retry": status = .billingRetry
        default: status = nil
        }
        var entitlements: [String] = []
        if case .array(let names)? = subscription["entitlements"] { entitlements = names.compactMap(\.text).sorted() }
        var monthly: MonthlyPrice?
        if let status, status.isLive, !trial, case .array(let periods)? = subscription["transactions"],
           case .object(let latest)? = periods.last {
            monthly = MonthlyPrice.of(latest, environment: subscription["environment"]?.text)
        }
        return MetricsSubscriptionState(productId: subscription["productId"]?.text, entitlements: entitlements,
                                        status: status, trial: trial, monthly: monthly)
    }
}

extension JSONValue {
    var text: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var flag: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var integer: Int64? {
        if case .number(let value) = self, value.rounded() == value, abs(value) < 9_007_199_254_740_992 { return Int64(value) }
        return nil
    }
}
