import StorekeeperCore
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
}
