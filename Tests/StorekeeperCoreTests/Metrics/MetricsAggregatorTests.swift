import Foundation
import StorekeeperCore
import StorekeeperTesting
import Testing

/// The aggregator over the event log: what each event counts, current figures kept exact by
/// transitions, and every event counted once through reruns and kills.
@Suite("Metrics: the resumable aggregator over the event log")
struct MetricsAggregatorTests {
    typealias World = MetricsWorld
    static let d = World.day

    static func day(_ offset: Int64) -> String { MetricsDay.of(World.start + offset * d) }

    @Test func eachCountedTypeAndTransitionLandsOnItsDayAndInTheTotals() throws {
        var world = World()
        try world.playStory()
        try world.catchUp()
        let a = try #require(try world.shard())
        #expect(a.sequence == 12)
        #expect(a.pending.isEmpty, "the states are at their keys, the record no longer carries them")
        #expect(a.totals == ["new_purchase": 3, "renewal": 1, "expiration": 1, "refund": 1, "refund_request": 1,
                             "refund_declined": 1, "churn": 2, "trial_conversion": 1])
        #expect(a.days == [
            Self.day(0): ["new_purchase": 2, "active_change": 2],
            Self.day(1): ["new_purchase": 1, "active_change": 1],
            Self.day(2): ["renewal": 1, "trial_conversion": 1],
            Self.day(3): ["expiration": 1, "churn": 1, "active_change": -1],
            Self.day(4): ["refund_request": 1, "refund": 1, "churn": 1, "refund_declined": 1, "active_change": -2],
        ])
        // Now: only the yearly subscription is counted, in billing retry (no access, no revenue).
        #expect(a.current.statuses == ["billing_retry": 1])
        #expect(a.current.entitlements == ["pro": ["billing_retry": 1]])
        #expect(a.current.products.isEmpty)
        #expect(a.current.monthlyMilliunits.isEmpty)
        #expect(a.current.active == 0)

        let b = try #require(try world.shard(World.appB, "Sandbox"))
        #expect(b.totals == ["new_purchase": 1, "active_change": 1])
        #expect(b.current.statuses == ["active": 1])
        #expect(b.current.products == ["b.weekly": 1])
        #expect(b.current.entitlements == ["plus": ["active": 1]])
        #expect(b.current.monthlyMilliunits == ["USD": 1990 * 52 / 12], "a sandbox week (3 minutes) is a week")
        #expect(try world.store.setMembers(StoreKeys.metricsShards) == ["com.example.a/Production", "com.example.b/Sandbox"],
                "a grant without an environment counts nothing of its own")
        #expect(try MetricsAggregator(store: world.store).cursor() == 12)
    }

    @Test func theCurrentFiguresFollowEveryStatusAndTheRevenueEachPeriodNormalised() throws {
        var world = World()
        try world.append(.initialPurchase, customer: "u1", subscriptions: [World.subscription("1", status: "active", periodType: "trial", price: 0)])
        try world.append(.initialPurchase, customer: "u2", subscriptions: [World.subscription("2", status: "active")])
        try world.append(.initialPurchase, customer: "u3", subscriptions: [
            World.subscription("3", product: "pro.yearly", status: "active", price: 99990, currency: "EUR", periodMilliseconds: 365 * Self.d)])
        try world.append(.cancellation, customer: "u2", subscriptions: [World.subscription("2", status: "active", willRenew: false)])
        try world.append(.gracePeriod, customer: "u4", subscriptions: [World.subscription("4", status: "grace")])
        try world.append(.billingIssue, customer: "u5", subscriptions: [World.subscription("5", status: "billing_retry")])
        try world.catchUp()
        var a = try #require(try world.shard()).current
        #expect(a.statuses == ["trial": 1, "auto_renew_off": 1, "active": 1, "grace_period": 1, "billing_retry": 1])
        #expect(a.active == 4)
        #expect(a.products == ["pro.monthly": 3, "pro.yearly": 1])
        #expect(a.entitlements == ["pro": ["trial": 1, "auto_renew_off": 1, "active": 1, "grace_period": 1, "billing_retry": 1]])
        #expect(a.monthlyMilliunits == ["USD": 9990 * 2, "EUR": 99990 / 12], "a trial brings nothing; grace still counts")

        // The trial converts, the grace period ends in billing retry, the cancelled one renews again.
        try world.append(.renewal, customer: "u1", subscriptions: [World.subscription("1", status: "active")])
        try world.append(.billingIssue, customer: "u4", subscriptions: [World.subscription("4", status: "billing_retry")])
        try world.append(.uncancellation, customer: "u2", subscriptions: [World.subscription("2", status: "active")])
        try world.catchUp()
        let shard = try #require(try world.shard())
        a = shard.current
        #expect(a.statuses == ["active": 3, "billing_retry": 2])
        #expect(a.monthlyMilliunits == ["USD": 9990 * 2, "EUR": 99990 / 12])
        #expect(shard.totals["trial_conversion"] == 1)
        #expect(shard.totals["churn"] == nil, "billing retry is not churn until the subscription ends")
    }

    @Test func aRerunOrAnOlderCursorCountsNothingTwice() throws {
        var world = World()
        try world.playStory()
        try world.catchUp(step: 5)
        struct Figures: Equatable {
            var current: MetricsCurrent
            var totals: [String: Int]
            var days: [String: [String: Int]]
        }
        func figures() throws -> Figures? {
            // What the figures are: not how far the shard has read (a shard no event of the last
            // batch concerns stays behind) nor the states its last write changed.
            try world.shard().map { Figures(current: $0.current, totals: $0.totals, days: $0.days) }
        }
        let once = try figures()
        try world.catchUp()
        // A cursor that never moved (a process killed after every shard was written).
        try world.store.set(StoreKeys.metricsCursor, record: MetricsCursor(sequence: 0), expiresIn: nil)
        try world.catchUp(step: 3)
        #expect(try figures() == once)
        #expect(try world.shard()?.totals["new_purchase"] == 3)
        #expect(try MetricsAggregator(store: world.store).cursor() == 12)
    }

    @Test func theDailySeriesRebuildsEachDaysActiveCountFromToday() throws {
        var world = World()
        try world.playStory()
        try world.catchUp()
        let series = try #require(try world.shard()).daily(count: 4, now: World.start + 5 * Self.d)
        #expect(series.map(\.day) == [Self.day(2), Self.day(3), Self.day(4), Self.day(5)])
        #expect(series.map(\.active) == [3, 2, 0, 0])
        #expect(series[1].flows["churn"] == 1)
    }

    @Test func bucketsOlderThanTheWindowAreForgottenAndTheTotalsStay() throws {
        var world = World()
        try world.playStory()
        try world.catchUp(now: World.start + 95 * Self.d)
        let a = try #require(try world.shard())
        #expect(a.days.keys.sorted() == [Self.day(4)], "92 days back from day 95 is day 4")
        #expect(a.totals["new_purchase"] == 3)
    }

    @Test func monthlyPricesSnapToTheOfferedPeriods() throws {
        func monthly(_ days: Double, _ price: Int64 = 12000, sandbox: Bool = false) throws -> Int64? {
            let unit: Double = sandbox ? 60_000 : 86_400_000
            let environment = sandbox ? "Sandbox" : "Production"
            var world = World()
            try world.append(.initialPurchase, environment: environment, subscriptions: [World.subscription(
                "1", environment: environment, status: "active", price: price, periodMilliseconds: Int64(days * unit))])
            try world.catchUp()
            return try world.shard(World.appA, environment)?.current.monthlyMilliunits["USD"]
        }
        let weekly: Int64 = 12000 * 52 / 12
        #expect(try monthly(7) == weekly)
        #expect(try monthly(31) == 12000)
        #expect(try monthly(28) == 12000, "February is a month")
        #expect(try monthly(61) == 6000)
        #expect(try monthly(92) == 4000)
        #expect(try monthly(183) == 2000)
        #expect(try monthly(366) == 1000)
        #expect(try monthly(15) == nil, "no offered period is two weeks long")
        #expect(try monthly(5, sandbox: true) == 12000)
        #expect(try monthly(60, sandbox: true) == 1000)
    }
}
