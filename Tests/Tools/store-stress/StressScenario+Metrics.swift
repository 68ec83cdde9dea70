import FoundationEssentials
import StorekeeperCore

extension StressScenario {
    /// The `fill-customer-events` scenario, for `make bench` and the metrics figure: COUNT
    /// events over CUSTOMERS customers (one monthly subscription each, in two apps), each event
    /// carrying a customer state of the size and shape the relay attaches (get-customer's
    /// subscription with its periods and renewal info), the customer's life going round:
    /// purchase (a third as trials), renewals, auto-renew off, expiry, a refund now and then.
    static func fillCustomerEvents(_ store: any KeyValueStore, count: Int, customers: Int) throws {
        let start: Int64 = 1_780_272_000_000
        let customers = max(customers, 1)
        for index in 0..<count {
            let customer = index % customers
            let step = index / customers
            let id = "user-\(customer)"
            let (type, status, willRenew) = lifeStep(step, customer: customer)
            let version = try store.logStreamVersion(StoreKeys.eventLog, stream: id)
            let at = start + Int64(step) * 30 * 86_400_000 + Int64(customer)
            let app = customer % 2 == 0 ? "com.example.app" : "com.example.other"
            let subscription = subscriptionState(otid: String(1_000_000_000 + customer), app: app, status: status,
                                                 willRenew: willRenew, trial: step == 0 && customer % 3 == 0, periods: step + 1, at: at)
            let event = Event(id: "metrics-bench-\(index)", type: type.rawValue, occurredAt: at, recordedAt: at, app: app,
                              environment: "Production", customerId: id, userId: id, productId: "com.example.pro.monthly",
                              transactionId: String(2_000_000_000 + index), originalTransactionId: String(1_000_000_000 + customer),
                              source: "notification",
                              customer: .object(["customerId": .string(id), "userId": .string(id), "version": .number(Double(version + 1)),
                                                 "subscriptions": .object(["com.example.pro.monthly": subscription])]))
            _ = try store.appendToLog(StoreKeys.eventLog, LogAppend(id: event.id, stream: id, expectedStreamVersion: version,
                                                                    recordedAt: at, bytes: try event.encoded()))
        }
    }

    static func lifeStep(_ step: Int, customer: Int) -> (EventType, String, Bool) {
        switch step % 6 {
        case 0: (.initialPurchase, "active", true)
        case 1, 2: (.renewal, "active", true)
        case 3: customer % 10 == 0 ? (.refund, "refunded", true) : (.cancellation, "active", false)
        case 4: (.expiration, "expired", false)
        default: (.renewal, "active", true)
        }
    }

    /// A subscription as get-customer answers it, with up to two kept periods.
    static func subscriptionState(otid: String, app: String, status: String, willRenew: Bool, trial: Bool, periods: Int,
                                  at: Int64) -> JSONValue {
        func number(_ value: Int64) -> JSONValue { .number(Double(value)) }
        let period: Int64 = 30 * 86_400_000
        let transactions: [JSONValue] = (max(0, periods - 2)..<periods).map { index in
            .object(["transactionId": .string("\(otid)\(index)"), "originalTransactionId": .string(otid),
                     "productId": .string("com.example.pro.monthly"), "rawType": .string("Auto-Renewable Subscription"),
                     "subscriptionGroupIdentifier": .string("21000001"), "purchaseDate": number(at), "expiresDate": number(at + period),
                     "signedDate": number(at), "rawInAppOwnershipType": .string("PURCHASED"), "rawEnvironment": .string("Production"),
                     "bundleId": .string(app), "appAccountToken": .string("10000000-1111-4222-8333-000000000001"),
                     "price": number(trial ? 0 : 9990), "currency": .string("USD"), "storefront": .string("USA"),
                     "rawTransactionReason": .string(index == 0 ? "PURCHASE" : "RENEWAL"),
                     "webOrderLineItemId": .string("\(otid)\(index)0"), "originalPurchaseDate": number(at)])
        }
        return .object([
            "originalTransactionId": .string(otid), "bundleId": .string(app), "productId": .string("com.example.pro.monthly"),
            "status": .string(status), "active": .bool(status == "active"), "entitlements": .array([.string("pro")]),
            "purchaseDate": number(at), "originalPurchaseDate": number(at), "expiresDate": number(at + period),
            "periodType": .string(trial ? "trial" : "normal"), "willRenew": .bool(willRenew),
            "autoRenewProductId": .string("com.example.pro.monthly"), "isFamilyShare": .bool(false),
            "environment": .string("Production"), "priceUnit": .string("milliunits"), "transactions": .array(transactions),
            "renewal": .object(["originalTransactionId": .string(otid), "autoRenewProductId": .string("com.example.pro.monthly"),
                                "rawAutoRenewStatus": number(willRenew ? 1 : 0), "signedDate": number(at),
                                "renewalDate": number(at + period), "renewalPrice": number(9990), "currency": .string("USD")]),
            "lastEvent": .object(["type": .string("DID_RENEW"), "date": number(at), "source": .string("notification")]),
        ])
    }

    /// The `metrics-catch-up` scenario: the aggregator counts the whole log; prints events and milliseconds.
    static func metricsCatchUp(_ store: any KeyValueStore) throws {
        let started = ContinuousClock.now
        let aggregator = MetricsAggregator(store: store)
        var events = 0
        while true {
            let progress = try aggregator.catchUp(maxEvents: 10_000, now: 1_780_272_000_000 + 400 * 86_400_000)
            events += progress.events
            if progress.caughtUp || progress.events == 0 { break }
        }
        let elapsed = ContinuousClock.now - started
        print("{\"events\": \(events), \"milliseconds\": \(elapsed / .milliseconds(1))}")
    }
}
