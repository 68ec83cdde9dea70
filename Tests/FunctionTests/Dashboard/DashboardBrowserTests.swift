import Foundation
import StorekeeperCore
import StorekeeperTesting
import Testing
import TestSupport

/// The dashboard in a real browser: Debian's headless Chromium, driven by Selenium (PyPI, in
/// var/python) through Tests/Support/peers/dashboard_browser.py with JavaScript off, against
/// the real gateway (lighttpd running the functions as CGI) after a scripted lifecycle
/// delivered over HTTP. The figures it reads are compared with what `metrics` reads from the
/// same store; screenshots of each view land in var/screenshots/ for people to look at.
@Suite("dashboard in headless Chromium through the gateway", .serialized,
       .enabled(if: E2E.shouldRun, "redis-server or lighttpd is not installed (see EndToEnd)"),
       .enabled(if: HeadlessChromium.unavailableReason == nil, "\(HeadlessChromium.unavailableReason ?? "")"))
struct DashboardBrowserTests {
    static let day = LifecycleSimulator.day

    /// Three customers, 40 days back: one subscribes and renews, one is refunded, one subscribes later.
    static func stories(now: Int64) -> [NotificationSpec] {
        var renewed = LifecycleSimulator(originalTransactionId: "5400000001", group: 540, start: now - 40 * day)
        var refunded = LifecycleSimulator(originalTransactionId: "5400000002", group: 541, start: now - 40 * day)
        var later = LifecycleSimulator(originalTransactionId: "5400000003", group: 542, start: now - 20 * day)
        renewed.subscribe()
        refunded.subscribe()
        refunded.refund()
        renewed.renew()
        later.subscribe()
        return renewed.notifications + refunded.notifications + later.notifications
    }

    @Test func signInFiguresCustomerAndPhoneWidthWithoutScripts() throws {
        let deployment = try Deployment(.sqlite)
        let specs = Self.stories(now: E2E.nowMilliseconds)
        for payload in try Binaries.sign(specs) {
            let answer = try deployment.gateway.deliver(payload)
            #expect(answer.status == 200, "\(answer)")
            _ = try deployment.work()
        }
        let customer = specs[0].transaction.appAccountToken ?? ""
        let report = try DashboardBrowser.run(base: deployment.gateway.baseURL, token: deployment.adminToken,
                                              customer: customer, environment: "Sandbox")
        let store = try MetricsBinaryTests.scrape(deployment.environment, at: E2E.nowMilliseconds / 1000).families
        let sandbox = ["app": E2E.bundleId, "environment": "Sandbox"]

        #expect(report["javascriptEnabled"] as? Bool == false, "the browser must run with JavaScript off")
        let form = try #require(report["form"] as? [String: Any])
        #expect(form["fields"] as? [String] == ["token"])
        DashboardBrowser.expectRendered(form, minimumText: 40)
        // The cookie, as the browser keeps it.
        let cookie = try #require(report["cookie"] as? [String: Any])
        #expect(cookie["httpOnly"] as? Bool == true)
        #expect(cookie["secure"] as? Bool == true)
        #expect(cookie["sameSite"] as? String == "Strict")
        #expect(cookie["path"] as? String == "/dashboard")
        let expiry = try #require(cookie["expiry"] as? Int)
        #expect(abs(Int64(expiry) - (E2E.nowMilliseconds / 1000 + DashboardCookie.lifetimeSeconds)) < 600, "\(expiry)")
        #expect(report["cookieCarriesToken"] as? Bool == false)

        // The figures on the page are the store's, and not nothing.
        let overview = try #require(report["overview"] as? [String: Any])
        DashboardBrowser.expectRendered(overview, minimumText: 400)
        #expect(overview["h1"] as? [String] == ["Storekeeper: all apps, Sandbox"])
        let headings = overview["h2"] as? [String] ?? []
        #expect(headings.count == 3 && headings.first == "Now" && headings.last == "Pipeline", "\(headings)")
        #expect(headings.dropFirst().first?.hasPrefix("Over time (90 days, ") == true, "\(headings)")
        let active = store.value("storekeeper_subscriptions", sandbox.merging(["status": "active"]) { $1 }) ?? -1
        #expect(active == 2)
        #expect(overview["active"] as? [String] == ["Active subscriptions: \(Int(active))"], "\(overview)")
        let cells = overview["cells"] as? [String] ?? []
        #expect(cells.contains("com.example.pro.monthly"), "\(cells)")
        let received = store.filter { $0.name == "storekeeper_notifications_received" }.flatMap(\.samples)
            .filter { $0.name.hasSuffix("_total") }.map(\.value).reduce(0, +)
        #expect(received == Double(specs.count))
        let captions = overview["captions"] as? [String] ?? []
        #expect(captions.contains("all notifications (\(Int(received)))"), "\(captions)")
        #expect(captions.contains("SUBSCRIBED (3)") && captions.contains("DID_RENEW (1)") && captions.contains("REFUND (1)"))
        #expect(captions.contains("new purchases (3)") && captions.contains("refunds (1)"), "\(captions)")
        #expect(captions.contains { $0.hasPrefix("active subscriptions (\(Int(active)) on ") }, "\(captions)")

        // The customer, looked up through the form, told as a story.
        let found = try #require(report["customer"] as? [String: Any])
        DashboardBrowser.expectRendered(found, minimumText: 150)
        #expect((found["url"] as? String ?? "").contains("customer=\(customer)&environment=Sandbox"), "\(found)")
        let story = found["story"] as? [String] ?? []
        #expect(story.count == 2, "\(story)")
        #expect(story.first?.hasSuffix("com.example.pro.monthly: subscribed (from Apple's notification)") == true, "\(story)")
        #expect(story.last?.contains("com.example.pro.monthly: renewed") == true, "\(story)")
        #expect((found["cells"] as? [String] ?? []).contains("active, renews"), "\(found)")
        let missing = try #require(report["missing"] as? [String: Any])
        #expect((missing["alerts"] as? [String] ?? []).first?.hasPrefix("No such customer") == true)

        // A phone: nothing wider than its 390 CSS pixels.
        for name in ["phoneOverview", "phoneCustomer"] {
            let phone = try #require(report[name] as? [String: Any])
            DashboardBrowser.expectRendered(phone, minimumText: 150)
            #expect(phone["viewportWidth"] as? Double == 390, "\(name)")
            #expect((phone["contentWidth"] as? Double ?? .infinity) <= 390, "\(name): \(phone)")
        }
    }
}

/// The run of the Python driver, and what every view it saw must show.
enum DashboardBrowser {
    static let screenshots = FunctionBinary.repositoryRoot.appendingPathComponent("var/screenshots")

    static func run(base: String, token: String, customer: String, environment: String) throws -> [String: Any] {
        try HeadlessChromium.run(script: "dashboard_browser.py",
                                 arguments: [base, token, customer, environment, screenshots.path], secret: token)
    }

    /// A view that rendered: text, a visible heading, some height, no script, a screenshot saved.
    static func expectRendered(_ view: [String: Any], minimumText: Int) {
        #expect(view["scriptTags"] as? Int == 0, "\(view["url"] ?? "")")
        #expect((view["bodyTextLength"] as? Int ?? 0) >= minimumText, "\(view)")
        #expect(view["h1Displayed"] as? Bool == true && !(view["h1"] as? [String] ?? []).isEmpty, "\(view)")
        #expect((view["bodyHeight"] as? Double ?? Double(view["bodyHeight"] as? Int ?? 0)) > 100, "\(view)")
        let path = view["screenshot"] as? String ?? ""
        #expect(path.hasPrefix(screenshots.path) && (view["screenshotBytes"] as? Int ?? 0) > 5_000, "\(path)")
    }
}
