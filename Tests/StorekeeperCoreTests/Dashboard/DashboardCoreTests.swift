@testable import StorekeeperCore
import StorekeeperTesting
import Testing

@Suite("dashboard: the one escaping function, the signed cookie")
struct DashboardCoreTests {
    @Test func everyMarkupCharacterIsEscaped() {
        #expect(HTMLEscaping.escape("<a href=\"x\" title='y'>&amp;</a>") == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;")
        #expect(HTMLEscaping.escape("com.example.pro\u{0}") == "com.example.pro\u{FFFD}")
        #expect(HTMLEscaping.escape("plain é 1") == "plain é 1")
    }

    @Test func aCookieIsCheckedForSignatureExpiryAndKey() throws {
        let cookie = try DashboardCookie(material: Array("tokens one".utf8))
        let value = try cookie.value(tokenName: "ops.team", nowSeconds: 1_000)
        #expect(cookie.tokenName(in: value, nowSeconds: 1_000) == "ops.team")
        #expect(cookie.tokenName(in: value, nowSeconds: 1_000 + DashboardCookie.lifetimeSeconds - 1) == "ops.team")
        #expect(cookie.tokenName(in: value, nowSeconds: 1_000 + DashboardCookie.lifetimeSeconds) == nil)
        #expect(try DashboardCookie(material: Array("tokens two".utf8)).tokenName(in: value, nowSeconds: 1_000) == nil)
        let forged = value.replacingOccurrences(of: "ops.team", with: "admin")
        #expect(cookie.tokenName(in: forged, nowSeconds: 1_000) == nil)
        #expect(cookie.tokenName(in: "garbage", nowSeconds: 1_000) == nil)
        #expect(DashboardCookie.find(in: "a=b; storekeeper_dashboard=v.1.x") == "v.1.x")
        #expect(DashboardCookie.find(in: "a=b") == nil)
    }

    @Test func amountsHaveTwoDecimalsAndNoLocale() {
        #expect(DashboardPage.amount(milliunits: 12_345) == "12.35")
        #expect(DashboardPage.amount(milliunits: 990) == "0.99")
        #expect(DashboardPage.amount(milliunits: -1_005) == "-1.01")
    }

    @Test func notificationsPerDayByTypeAreTheViewsShardsSummedDayByDay() throws {
        let store = MemoryStore()
        let now: Int64 = 1_780_272_000_000 + 3_600_000
        let sandboxA = MetricsShardID(app: "com.a", environment: "Sandbox")
        let sandboxB = MetricsShardID(app: "com.b", environment: "Sandbox")
        let productionA = MetricsShardID(app: "com.a", environment: "Production")
        func put(_ shard: MetricsShardID, daysAgo: Int64, _ types: [String: Int]) throws {
            var counts = NotificationCounts()
            counts.types = types
            try store.set(StoreKeys.metricsNotificationDay(shard, day: MetricsDay.of(now - daysAgo * MetricsDay.milliseconds)),
                          record: counts, expiresIn: nil)
            _ = try store.addToSet(StoreKeys.metricsShards, shard.member)
        }
        try put(sandboxA, daysAgo: 2, ["SUBSCRIBED": 2])
        try put(sandboxB, daysAgo: 2, ["SUBSCRIBED": 1, "DID_RENEW": 4])
        try put(sandboxA, daysAgo: 0, ["DID_RENEW": 1])
        try put(productionA, daysAgo: 0, ["REFUND": 7])
        // A day outside the 3 days read first counts nothing there (the page reads 90).
        try put(sandboxA, daysAgo: 3, ["EXPIRED": 5])

        let days = try NotificationDays.read(store: store, shards: [sandboxA, sandboxB], count: 3, now: now)
        #expect(days.days.map(\.day) == ["2026-05-30", "2026-05-31", "2026-06-01"])
        #expect(days.days.map(\.types) == [["SUBSCRIBED": 3, "DID_RENEW": 4], [:], ["DID_RENEW": 1]])
        #expect(days.types == ["DID_RENEW", "SUBSCRIBED"])

        var page = DashboardPage(reading: try MetricsReading.read(store: store, webhooks: [], now: now), app: nil,
                                 environment: "Sandbox", quietSeconds: 3_600)
        #expect(Set(page.shardIDs) == [sandboxA, sandboxB])
        page.notificationDays = try NotificationDays.read(store: store, shards: page.shardIDs, count: DashboardPage.days, now: now)
        let html = page.html()
        #expect(html.contains("<h3>Notifications received per day by type</h3>"))
        #expect(html.contains("<figcaption>all notifications (13)</figcaption>"), "\(html)")
        #expect(html.contains("<figcaption>DID_RENEW (5)</figcaption>"))
        // A level is captioned with its last day's value, a flow with its sum.
        #expect(html.contains("<figcaption>active subscriptions (0 on 2026-06-01)</figcaption>"), "\(html)")
        #expect(html.contains("<figcaption>EXPIRED (5)</figcaption>"))
        #expect(!html.contains("REFUND"), "Production's notifications are another view")
    }

    @Test func aTimelineEntryIsToldInWordsWithItsSource() {
        let expired = HistoryEntry(id: "1", date: 0, type: "EXPIRED", subtype: "VOLUNTARY", productId: "p", source: "notification")
        #expect(DashboardCustomer.story([expired]) == "<ol class=\"story\"><li><time datetime=\"1970-01-01T00:00:00.000Z\">"
            + "1970-01-01 00:00 UTC</time> <strong>p</strong>: expired: the customer had turned auto-renew off"
            + " <span class=\"src\">(from Apple&#39;s notification)</span></li></ol>")
        let grant = HistoryEntry(id: "2", date: 0, type: "GRANT_ADDED", source: "support", actor: "ops", reason: "<sorry>",
                                 entitlement: "pro")
        #expect(DashboardStory.words(grant) == "granted pro: \u{201C}<sorry>\u{201D}")
        #expect(DashboardCustomer.story([grant]).contains("granted pro: \u{201C}&lt;sorry&gt;\u{201D} <span class=\"src\">(from support, ops)</span>"))
        let unknown = HistoryEntry(id: "3", date: 0, type: "NEW_TYPE", subtype: "ODD", source: "notification")
        #expect(DashboardStory.words(unknown) == "NEW_TYPE (ODD)")
        #expect(DashboardCustomer.story([]) == "<p>Nothing recorded.</p>")
    }

    @Test func thePipelineShowsTheOldestJobWebhookAttemptsAndTheLastRecoveryRuns() throws {
        let store = MemoryStore()
        let now: Int64 = 1_780_272_000_000
        let shard = MetricsShardID(app: "com.a", environment: "Production")
        var counts = WebhookDeliveryCounts()
        counts.delivered = 41
        counts.failed = 3
        counts.dead = 1
        try store.set(StoreKeys.webhookDeliveries(endpoint: "crm"), record: counts, expiresIn: nil)
        var report = RecoveryReport()
        report.fetched = 12
        report.queued = 2
        report.firstSendAttemptResults = ["SUCCESS": 10, "TIMED_OUT": 2]
        try RecoveryRunHistory.append(RecoveryRun(endedAt: now - 60_000, window: (now - 86_400_000, now - 60_000), report: report),
                                      for: shard, store: store)
        var stopped = RecoveryReport()
        stopped.stoppedBy = "apple_unavailable"
        try RecoveryRunHistory.append(RecoveryRun(endedAt: now - 30_000, window: (now - 3_600_000, now - 30_000), report: stopped),
                                      for: MetricsShardID(app: "com.a", environment: "Sandbox"), store: store)
        var reading = try MetricsReading.read(store: store, webhooks: [(name: "crm", host: "")], now: now)
        reading.oldestPendingEnqueuedAt = now - 200_000
        reading.realNow = now
        let html = DashboardPage(reading: reading, app: nil, environment: "Production", quietSeconds: 3_600).html()
        #expect(html.contains("Queue depth: <strong>0</strong>, the oldest job waiting <strong>3 min 20 s</strong>"), "\(html)")
        #expect(html.contains("<td>crm</td><td class=\"n\">0</td><td class=\"n\">0</td><td class=\"n\">0</td>"
            + "<td class=\"n\">41</td><td class=\"n\">3</td><td class=\"n\">1</td>"), "\(html)")
        #expect(html.contains("<td>complete</td><td class=\"n\">12</td><td class=\"n\">2</td><td>SUCCESS 10, TIMED_OUT 2</td>"), "\(html)")
        #expect(!html.contains("apple_unavailable"), "the Sandbox run is another view's")
        #expect(DashboardPage.duration(seconds: 7_500) == "2 h 5 min")
        let empty = DashboardPage(reading: try MetricsReading.read(store: MemoryStore(), webhooks: [], now: now), app: nil,
                                  environment: "Production", quietSeconds: 3_600).html()
        #expect(empty.contains("Queue depth: <strong>0</strong>."))
        #expect(empty.contains("No run recorded."))
    }
}
