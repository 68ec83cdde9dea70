import FoundationEssentials
import StorekeeperCore
import Testing

@Suite("Entitlement engine: every notification type")
struct EntitlementEngineTests {
    /// One row per notification type and subtype Apple documents: a lifecycle that ends with
    /// that notification, and the status and outcome it must produce.
    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        let expectedStatus: EntitlementStatus?
        let expectedOutcome: EntitlementUpdate.Outcome
        let play: @Sendable (inout LifecycleSimulator) -> Void
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "SUBSCRIBED/INITIAL_BUY", expectedStatus: .active, expectedOutcome: .applied) { $0.subscribe() },
        Row(name: "SUBSCRIBED/RESUBSCRIBE", expectedStatus: .active, expectedOutcome: .applied) {
            $0.subscribe(); $0.setAutoRenew(false); $0.expire(); $0.renew(); retag(&$0, "SUBSCRIBED", "RESUBSCRIBE")
        },
        Row(name: "DID_RENEW", expectedStatus: .active, expectedOutcome: .applied) { $0.subscribe(); $0.renew() },
        Row(name: "DID_RENEW/BILLING_RECOVERY", expectedStatus: .active, expectedOutcome: .applied) {
            $0.subscribe(); $0.failBilling(withGrace: false); $0.renew(subtype: "BILLING_RECOVERY")
        },
        Row(name: "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", expectedStatus: .active, expectedOutcome: .applied) {
            $0.subscribe(); $0.setAutoRenew(false)
        },
        Row(name: "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED", expectedStatus: .active, expectedOutcome: .applied) {
            $0.subscribe(); $0.setAutoRenew(false); $0.setAutoRenew(true)
        },
        Row(name: "DID_CHANGE_RENEWAL_PREF/UPGRADE", expectedStatus: .active, expectedOutcome: .applied) {
            $0.subscribe(); $0.upgrade(to: "com.example.max.monthly")
        },
        Row(name: "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", expectedStatus: .active, expectedOutcome: .applied) {
            $0.subscribe(); $0.setAutoRenew(true); retag(&$0, "DID_CHANGE_RENEWAL_PREF", "DOWNGRADE")
        },
        Row(name: "OFFER_REDEEMED", expectedStatus: .active, expectedOutcome: .applied) {
            $0.subscribe(); $0.renew(); retag(&$0, "OFFER_REDEEMED", "UPGRADE")
        },
        Row(name: "DID_FAIL_TO_RENEW/GRACE_PERIOD", expectedStatus: .grace, expectedOutcome: .applied) {
            $0.subscribe(); $0.failBilling(withGrace: true)
        },
        Row(name: "DID_FAIL_TO_RENEW", expectedStatus: .billingRetry, expectedOutcome: .applied) {
            $0.subscribe(); $0.failBilling(withGrace: false)
        },
        Row(name: "GRACE_PERIOD_EXPIRED", expectedStatus: .billingRetry, expectedOutcome: .applied) {
            $0.subscribe(); $0.failBilling(withGrace: true); $0.expireGrace()
        },
        Row(name: "EXPIRED/VOLUNTARY", expectedStatus: .expired, expectedOutcome: .applied) {
            $0.subscribe(); $0.setAutoRenew(false); $0.expire()
        },
        Row(name: "EXPIRED/BILLING_RETRY", expectedStatus: .expired, expectedOutcome: .applied) {
            $0.subscribe(); $0.failBilling(withGrace: false); $0.expire()
        },
        Row(name: "EXPIRED/PRICE_INCREASE", expectedStatus: .expired, expectedOutcome: .applied) {
            $0.subscribe(); $0.setAutoRenew(false); $0.expire(); retag(&$0, "EXPIRED", "PRICE_INCREASE")
        },
        Row(name: "EXPIRED/PRODUCT_NOT_FOR_SALE", expectedStatus: .expired, expectedOutcome: .applied) {
            $0.subscribe(); $0.setAutoRenew(false); $0.expire(); retag(&$0, "EXPIRED", "PRODUCT_NOT_FOR_SALE")
        },
        Row(name: "REFUND", expectedStatus: .refunded, expectedOutcome: .applied) { $0.subscribe(); $0.refund() },
        Row(name: "REFUND of a past period", expectedStatus: .active, expectedOutcome: .applied) {
            $0.subscribe(); $0.renew(); $0.refund(periodIndex: 0)
        },
        Row(name: "REFUND_DECLINED", expectedStatus: .active, expectedOutcome: .applied) {
            $0.subscribe(); $0.setAutoRenew(true); retag(&$0, "REFUND_DECLINED", nil)
        },
        Row(name: "REFUND_REVERSED", expectedStatus: .active, expectedOutcome: .applied) {
            $0.subscribe(); $0.refund(); $0.reverseRefund()
        },
        Row(name: "REVOKE (Family Sharing)", expectedStatus: .revoked, expectedOutcome: .applied) {
            $0.ownership = "FAMILY_SHARED"; $0.subscribe(); $0.refund()
        },
        Row(name: "RENEWAL_EXTENDED", expectedStatus: .active, expectedOutcome: .applied) {
            $0.subscribe(); $0.renew(); retag(&$0, "RENEWAL_EXTENDED", nil)
        },
        Row(name: "PRICE_INCREASE/PENDING", expectedStatus: .active, expectedOutcome: .applied) {
            $0.subscribe(); $0.setAutoRenew(true); retag(&$0, "PRICE_INCREASE", "PENDING")
        },
        Row(name: "PRICE_INCREASE/ACCEPTED", expectedStatus: .active, expectedOutcome: .applied) {
            $0.subscribe(); $0.setAutoRenew(true); retag(&$0, "PRICE_INCREASE", "ACCEPTED")
        },
        Row(name: "RENEWAL_EXTENSION/SUMMARY (no transaction)", expectedStatus: .active, expectedOutcome: .ignored) {
            $0.subscribe(); $0.setAutoRenew(true); retag(&$0, "RENEWAL_EXTENSION", "SUMMARY")
        },
        Row(name: "CONSUMPTION_REQUEST", expectedStatus: .active, expectedOutcome: .ignored) {
            $0.subscribe(); $0.setAutoRenew(true); retag(&$0, "CONSUMPTION_REQUEST", nil)
        },
        Row(name: "TEST", expectedStatus: .active, expectedOutcome: .ignored) {
            $0.subscribe(); $0.setAutoRenew(true); retag(&$0, "TEST", nil)
        },
        // A type Apple adds later still carries signed facts: they are merged like any other
        // notification's (here: auto-renew turned back on), and the raw type is kept.
        Row(name: "an unknown type", expectedStatus: .active, expectedOutcome: .applied) {
            $0.subscribe(); $0.setAutoRenew(false); $0.setAutoRenew(true); retag(&$0, "SOMETHING_APPLE_ADDS_NEXT_YEAR", "NEW")
        },
    ]

    /// Gives the last event another type/subtype (same signed data): for types whose data
    /// looks like another's.
    static func retag(_ simulator: inout LifecycleSimulator, _ type: String, _ subtype: String?) {
        simulator.notifications[simulator.notifications.count - 1].type = type
        simulator.notifications[simulator.notifications.count - 1].subtype = subtype
    }

    @Test(arguments: rows)
    func notificationType(_ row: Row) throws {
        var simulator = LifecycleSimulator()
        row.play(&simulator)
        var record: EntitlementRecord?
        var last: EntitlementUpdate?
        for event in simulator.events {
            last = try EntitlementEngine.apply(event, to: record)
            record = last?.record
        }
        #expect(last?.outcome == row.expectedOutcome)
        #expect(record?.status == row.expectedStatus)
    }

    @Test func anUnknownTypeIsMergedAndKeepsItsRawName() throws {
        var simulator = LifecycleSimulator()
        simulator.subscribe()
        simulator.setAutoRenew(false)
        Self.retag(&simulator, "SOMETHING_APPLE_ADDS_NEXT_YEAR", "NEW")
        var record: EntitlementRecord?
        var last: EntitlementUpdate?
        for event in simulator.events {
            last = try EntitlementEngine.apply(event, to: record)
            record = last?.record
        }
        #expect(last?.outcome == .applied)
        #expect(record?.lastEvent.type == "SOMETHING_APPLE_ADDS_NEXT_YEAR")
        #expect(record?.renewal?.autoRenewStatus == 0)
    }

    @Test func aNonConsumableIsLifetimeUntilRefunded() throws {
        var simulator = LifecycleSimulator(productType: "Non-Consumable")
        simulator.subscribe()
        var record = try EntitlementEngine.apply(simulator.events[0], to: nil).record
        #expect(record?.status == .lifetime)
        simulator.refund()
        record = try EntitlementEngine.apply(simulator.events[1], to: record).record
        #expect(record?.status == .refunded)
    }

    @Test func aConsumableIsIgnored() throws {
        var simulator = LifecycleSimulator(productType: "Consumable")
        simulator.subscribe()
        let update = try EntitlementEngine.apply(simulator.events[0], to: nil)
        #expect(update.outcome == .ignored)
        #expect(update.record == nil)
    }

    @Test func anUpgradeMovesToTheNewProductAndTheOldTransactionDoesNotMoveItBack() throws {
        var simulator = LifecycleSimulator()
        simulator.subscribe()
        simulator.upgrade(to: "com.example.max.monthly")
        let record = try #require(try EntitlementPropertyTests.applyAll(simulator.events))
        #expect(record.latestTransaction?.productId == "com.example.max.monthly")
        let entitlement = Entitlement(record, now: Date(timeIntervalSince1970: Double(simulator.now) / 1000))
        #expect(entitlement.productId == "com.example.max.monthly")
        #expect(entitlement.active)
    }

    @Test func aRefundOfAPastPeriodIsRecordedButKeepsTheCurrentOne() throws {
        var simulator = LifecycleSimulator()
        simulator.subscribe()
        simulator.renew()
        simulator.refund(periodIndex: 0)
        let record = try #require(try EntitlementPropertyTests.applyAll(simulator.events))
        let entitlement = Entitlement(record, now: Date(timeIntervalSince1970: Double(simulator.now) / 1000))
        #expect(entitlement.status == .active)
        #expect(entitlement.revokedTransactionIds == ["10001"])
        #expect(entitlement.latestTransactionId == "10002")
    }

    @Test func theClockMovesAnUnconfirmedStatusOn() throws {
        var simulator = LifecycleSimulator()
        simulator.subscribe()
        let record = try #require(try EntitlementPropertyTests.applyAll(simulator.events))
        let afterExpiry = Date(timeIntervalSince1970: Double(simulator.latest.expiresDate! + 1000) / 1000)
        let entitlement = Entitlement(record, now: afterExpiry)
        #expect(entitlement.status == .expired)
        #expect(!entitlement.active)
    }

    @Test func anEventForAnotherSubscriptionIsRefused() throws {
        var first = LifecycleSimulator(originalTransactionId: "1")
        first.subscribe()
        var second = LifecycleSimulator(originalTransactionId: "2")
        second.subscribe()
        let record = try EntitlementEngine.apply(first.events[0], to: nil).record
        #expect(throws: EntitlementError.self) { try EntitlementEngine.apply(second.events[0], to: record) }
    }
}
