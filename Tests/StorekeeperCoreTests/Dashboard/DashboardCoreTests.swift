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
}
