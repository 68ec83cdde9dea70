/// The metrics of a `MetricsReading` in the Prometheus text format: names start with
/// `storekeeper_`, counters end in `_total`, times are seconds, every family has its help and
/// type (also when it has no sample yet). The README's "Metrics" section lists them.
public enum MetricsExposition {
    public static func text(of reading: MetricsReading) -> String {
        var out = PrometheusText()
        subscriptions(reading, into: &out)
        flows(reading, into: &out)
        notifications(reading, into: &out)
        pipeline(reading, into: &out)
        recovery(reading, into: &out)
        return out.text
    }

    static func subscriptions(_ reading: MetricsReading, into out: inout PrometheusText) {
        let shards = reading.shards.compactMap { shard in shard.figures.map { (shard.id, $0.current) } }
        out.family("storekeeper_subscriptions", .gauge, help: "Auto-renewable subscriptions by status, each in one: "
                   + "active (paid, renews), trial, auto_renew_off (active, will not renew), grace_period, billing_retry.")
        for (id, current) in shards {
            for (status, count) in current.statuses.sorted(by: { $0.key < $1.key }) {
                out.sample("storekeeper_subscriptions", ["app": id.app, "environment": id.environment, "status": status], Int64(count))
            }
        }
        out.family("storekeeper_entitlement_subscriptions", .gauge, help: "Subscriptions giving each entitlement, by status.")
        for (id, current) in shards {
            for (entitlement, statuses) in current.entitlements.sorted(by: { $0.key < $1.key }) {
                for (status, count) in statuses.sorted(by: { $0.key < $1.key }) {
                    out.sample("storekeeper_entitlement_subscriptions", ["app": id.app, "environment": id.environment,
                                                                        "entitlement": entitlement, "status": status], Int64(count))
                }
            }
        }
        out.family("storekeeper_product_active_subscriptions", .gauge, help: "Subscriptions giving access now, by product.")
        for (id, current) in shards {
            for (product, count) in current.products.sorted(by: { $0.key < $1.key }) {
                out.sample("storekeeper_product_active_subscriptions",
                           ["app": id.app, "environment": id.environment, "product": product], Int64(count))
            }
        }
        out.family("storekeeper_estimated_monthly_recurring_revenue", .gauge, help: "Customer prices of the active paid "
                   + "subscriptions, each period normalised to a month, in units of the currency (before Apple's commission and taxes).")
        for (id, current) in shards {
            for (currency, milliunits) in current.monthlyMilliunits.sorted(by: { $0.key < $1.key }) {
                out.sample("storekeeper_estimated_monthly_recurring_revenue",
                           ["app": id.app, "environment": id.environment, "currency": currency], Double(milliunits) / 1000)
            }
        }
    }

    static func flows(_ reading: MetricsReading, into out: inout PrometheusText) {
        out.family("storekeeper_subscription_events_total", .counter, help: "What happened to subscriptions, by kind: "
                   + "new_purchase, renewal, expiration, refund, refund_reversed, refund_request, refund_declined, churn, trial_conversion.")
        for shard in reading.shards {
            guard let totals = shard.figures?.totals else { continue }
            for flow in MetricsFlow.allCases where flow != .activeChange {
                guard let count = totals[flow.rawValue] else { continue }
                out.sample("storekeeper_subscription_events_total",
                           ["app": shard.id.app, "environment": shard.id.environment, "kind": flow.rawValue], Int64(count))
            }
        }
    }

    static func notifications(_ reading: MetricsReading, into out: inout PrometheusText) {
        out.family("storekeeper_notifications_received_total", .counter,
                   help: "App Store Server Notifications applied by the worker, by notificationType.")
        for shard in reading.shards {
            for (type, count) in (shard.notifications?.types ?? [:]).sorted(by: { $0.key < $1.key }) {
                out.sample("storekeeper_notifications_received_total",
                           ["app": shard.id.app, "environment": shard.id.environment, "type": type], Int64(count))
            }
        }
        let last = reading.shards.compactMap { shard in shard.notifications?.lastReceivedAt.map { (shard.id, $0) } }
        out.family("storekeeper_last_notification_timestamp_seconds", .gauge, help: "When the last notification was received.")
        for (id, at) in last {
            out.sample("storekeeper_last_notification_timestamp_seconds", ["app": id.app, "environment": id.environment],
                       Double(at) / 1000)
        }
        out.family("storekeeper_last_notification_age_seconds", .gauge, help: "Time since the last notification was received.")
        for (id, at) in last {
            out.sample("storekeeper_last_notification_age_seconds", ["app": id.app, "environment": id.environment],
                       Double(max(0, reading.now - at)) / 1000)
        }
    }
}
