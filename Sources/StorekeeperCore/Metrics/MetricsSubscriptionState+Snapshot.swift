/// Reading a subscription's metrics state from an event's customer, the subscription as
/// get-customer answers it (`CustomerSubscription`'s fields, read by `MetricsEventView`).
extension MetricsSubscriptionState {
    /// One subscription of an event's customer, with where it is counted.
    public struct Seen: Sendable, Equatable {
        public var shard: MetricsShardID
        public var originalTransactionId: String
        public var state: MetricsSubscriptionState
    }

    /// Every subscription the customer state lists that names its original transaction id.
    static func seen(in event: MetricsEventView) -> [Seen] {
        event.subscriptions.keys.sorted().compactMap { key -> Seen? in
            guard let subscription = event.subscriptions[key], let originalTransactionId = subscription.originalTransactionId else {
                return nil
            }
            let shard = MetricsShardID(app: subscription.bundleId ?? event.app, environment: subscription.environment)
            return Seen(shard: shard, originalTransactionId: originalTransactionId, state: state(of: subscription))
        }
    }

    static func state(of subscription: MetricsEventView.Subscription) -> MetricsSubscriptionState {
        let willRenew = subscription.willRenew ?? false
        let trial = subscription.periodType == "trial"
        let status: MetricsStatus?
        switch subscription.status {
        case "active": status = !willRenew ? .autoRenewOff : trial ? .trial : .active
        case "grace": status = .gracePeriod
        case "billing_retry": status = .billingRetry
        default: status = nil
        }
        var monthly: MonthlyPrice?
        if let status, status.isLive, !trial, let latest = subscription.latest {
            monthly = MonthlyPrice.of(latest, environment: subscription.environment)
        }
        return MetricsSubscriptionState(productId: subscription.productId, entitlements: (subscription.entitlements ?? []).sorted(),
                                        status: status, trial: trial, monthly: monthly)
    }
}
