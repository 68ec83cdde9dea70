import Foundation
import StorekeeperCore
import StorekeeperTesting
import Testing
import TestSupport

/// `metrics` as a black box after real notifications: signed by simulate-store, received by
/// receive-notification, applied by process-notifications, then scraped, the answer read by
/// prometheus-client's own parser and checked value by value.
@Suite("metrics through the built binaries, read by prometheus-client's parser", .serialized,
       .enabled(if: E2E.shouldRun, "redis-server or lighttpd is not installed (see EndToEnd)"))
struct MetricsBinaryTests {
    static let day = LifecycleSimulator.day
    static let start: Int64 = 1_780_272_000_000
    static let app = ["app": E2E.bundleId, "environment": "Sandbox"]

    /// A trial that converts and then turns auto-renew off, and a purchase refunded.
    static func stories() -> [NotificationSpec] {
        var trial = LifecycleSimulator(originalTransactionId: "5300000001", group: 530, start: start)
        var refunded = LifecycleSimulator(originalTransactionId: "5300000002", group: 531, start: start)
        trial.subscribe()
        refunded.subscribe()
        refunded.refund()
        trial.renew()
        trial.setAutoRenew(false)
        var specs = [trial.notifications[0], refunded.notifications[0], refunded.notifications[1]]
            + Array(trial.notifications[1...])
        for index in specs.indices {
            specs[index].transaction.price = 9990
            specs[index].transaction.currency = "USD"
        }
        // The first period of the trial story is a free trial.
        specs[0].transaction.rawOfferType = 1
        specs[0].transaction.rawOfferDiscountType = "FREE_TRIAL"
        specs[0].transaction.price = 0
        return specs
    }

    static func scrape(_ environment: [String: String], at seconds: Int64) throws -> (families: [PrometheusParser.Family], text: String) {
        var environment = environment
        environment["STOREKEEPER_NOW"] = String(seconds)
        let result = try FunctionBinary(name: "metrics").run(stdin: Data("{}".utf8), environment: environment)
        #expect(result.exitCode == 0, "\(result.stderrText.suffix(2000))")
        return (try PrometheusParser.parse(result.stdoutText), result.stdoutText)
    }

    @Test("a lifecycle's figures, value by value; a rerun and a redelivery count nothing twice", arguments: Backend.allCases)
    func lifecycle(_ backend: Backend) throws {
        let store = try TestStore(backend)
        var environment = E2E.environment(storeURL: store.url, adminToken: "unused")
        let specs = Self.stories()
        let signed = try Binaries.sign(specs)
        // Each one received and applied a second after Apple signed it, as in production: the
        // customer state each event carries is the state at that time.
        for (spec, payload) in zip(specs, signed) {
            environment["STOREKEEPER_NOW"] = String(spec.signedDate / 1000 + 1)
            let received = try Binaries.receive([payload], environment: environment)
            #expect(received.exitCode == 0, "\(received.answers)")
            let worker = try Binaries.process(environment: environment)
            #expect(worker.report?.applied == 1, "\(worker)")
        }
        let last = try #require(specs.last).signedDate / 1000 + 1
        let (families, text) = try Self.scrape(environment, at: last + 3600)
        try Self.expectLifecycleFigures(families, text: text, lastReceived: last)

        // Apple sends one again; the worker runs again: the same figures.
        #expect(try Binaries.receive([signed[3]], environment: environment).exitCode == 0)
        #expect(try Binaries.process(environment: environment).exitCode == 0)
        let again = try Self.scrape(environment, at: last + 3600).families
        try Self.expectLifecycleFigures(again, text: text, lastReceived: last)
    }

    static func expectLifecycleFigures(_ families: [PrometheusParser.Family], text: String, lastReceived: Int64) throws {
        let app = Self.app
        #expect(families.allSatisfy { $0.name.hasPrefix("storekeeper_") && !$0.help.isEmpty }, "\(text)")
        #expect(families.count == 22, "every family, with help and type: \(families.map(\.name))")
        #expect(families.first { $0.name == "storekeeper_subscription_events" }?.type == "counter")
        #expect(families.first { $0.name == "storekeeper_subscriptions" }?.type == "gauge")
        // Now: the converted trial is active with auto-renew off; the refunded one counts nowhere.
        #expect(families.value("storekeeper_subscriptions", app.merging(["status": "auto_renew_off"]) { $1 }) == 1, "\(text)")
        #expect(families.flatMap(\.samples).filter { $0.name == "storekeeper_subscriptions" }.count == 1, "\(text)")
        #expect(families.value("storekeeper_entitlement_subscriptions", app.merging(["status": "auto_renew_off"]) { $1 }) == 1)
        #expect(families.value("storekeeper_product_active_subscriptions",
                               app.merging(["product": "com.example.pro.monthly"]) { $1 }) == 1)
        #expect(families.value("storekeeper_estimated_monthly_recurring_revenue", app.merging(["currency": "USD"]) { $1 }) == 9.99)
        for (kind, count) in ["new_purchase": 2.0, "renewal": 1, "refund": 1, "churn": 1, "trial_conversion": 1] {
            #expect(families.value("storekeeper_subscription_events_total", app.merging(["kind": kind]) { $1 }) == count, "\(kind): \(text)")
        }
        #expect(families.value("storekeeper_subscription_events_total", app.merging(["kind": "expiration"]) { $1 }) == nil)
        for (type, count) in ["SUBSCRIBED": 2.0, "DID_RENEW": 1, "REFUND": 1, "DID_CHANGE_RENEWAL_STATUS": 1] {
            #expect(families.value("storekeeper_notifications_received_total", app.merging(["type": type]) { $1 }) == count, "\(type)")
        }
        #expect(families.value("storekeeper_last_notification_age_seconds", app) == 3600)
        #expect(families.value("storekeeper_last_notification_timestamp_seconds", app) == Double(lastReceived))
        #expect(families.value("storekeeper_notification_queue_jobs") == 0)
        #expect(families.value("storekeeper_queue_oldest_job_age_seconds") == 0)
        #expect(families.value("storekeeper_notification_dead_letters") == 0)
        #expect(families.value("storekeeper_event_log_last_sequence") == 5)
        #expect(families.value("storekeeper_metrics_events_behind") == 0, "the worker caught up at the end of its run")
    }
}
