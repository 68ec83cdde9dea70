import Foundation
import Testing

/// The dashboard's customer view through the built binaries: purchases ingested for a user,
/// then looked up on the page by every kind of id, told as a story, escaped, and a clear
/// "no such customer".
@Suite("dashboard: the customer view")
struct DashboardCustomerTests {
    typealias World = CustomerWorld
    static let admin = "dashboard-admin-0123456789abcdef"

    static func page(_ world: CustomerWorld, query: String) throws -> (status: Int, body: String) {
        let event: [String: Any] = [
            "version": "2.0", "rawPath": "/dashboard", "rawQueryString": query, "headers": ["authorization": "Bearer \(admin)"],
            "requestContext": ["http": ["method": "GET", "path": "/dashboard"]], "isBase64Encoded": false,
        ]
        var environment = world.environment
        environment["STOREKEEPER_ADMIN_TOKEN"] = admin
        let result = try FunctionBinary(name: "dashboard").run(stdin: try JSONSerialization.data(withJSONObject: event),
                                                               environment: environment)
        let answer = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stderrText)")
        var body = answer["body"] as? String ?? ""
        if answer["isBase64Encoded"] as? Bool == true { body = String(decoding: Data(base64Encoded: body) ?? Data(), as: UTF8.self) }
        #expect(!result.stderrText.contains(admin))
        return (answer["statusCode"] as? Int ?? 0, body)
    }

    @Test func everyKindOfIdFindsTheCustomerAndTheTimelineReadsAsAStory() throws {
        let world = CustomerWorld()
        let token = "5d8c2a8e-9a6f-4a8e-9c59-0e6ad1d7f002"
        try world.ingest([
            (World.transaction("8000", product: "com.example.pro.monthly", purchased: World.now - 40 * World.day,
                               expires: World.now - 10 * World.day, ["appAccountToken": token]), nil),
            (World.transaction("8001", original: "8000", product: "com.example.pro.monthly", purchased: World.now - 10 * World.day,
                               expires: World.now + 20 * World.day, ["appAccountToken": token]),
             World.renewal(original: "8000", product: "com.example.pro.monthly", autoRenew: false)),
        ], userId: "u-dash")
        for id in ["u-dash", token, "8000", "8001"] {
            let (status, body) = try Self.page(world, query: "customer=\(id)")
            #expect(status == 200, "\(id)")
            #expect(body.contains("<h2>Customer <code>u-dash</code></h2>"), "\(id): \(body.prefix(600))")
        }
        let (_, body) = try Self.page(world, query: "customer=u-dash")
        // The entitlement, its state in words, and the timeline oldest first with ISO dates.
        #expect(body.contains("<td>com.example.pro.monthly</td><td>active, auto-renew off</td>"), "\(body)")
        #expect(body.contains("2026-06-21 00:00 UTC"), "\(body)")
        #expect(body.contains("2026-04-22 00:00 UTC</time> <strong>com.example.pro.monthly</strong>: purchase reported by the app"
            + " <span class=\"src\">(from the app)</span>"), "\(body)")
        #expect(body.contains("<form method=\"get\" action=\"/dashboard\" role=\"search\">"))
        #expect(body.contains("value=\"u-dash\""))
        #expect(!body.contains("<script"))
    }

    @Test func noSuchCustomerIsAClearMessageWith404AndAHostileIdIsEscaped() throws {
        let world = CustomerWorld()
        let (status, body) = try Self.page(world, query: "customer=%3Cimg%20src%3Dx%20onerror%3D%22alert(1)%22%3E")
        #expect(status == 404)
        #expect(body.contains("No such customer"))
        #expect(body.contains("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"), "\(body)")
        #expect(!body.contains("<img"))
        let empty = try Self.page(world, query: "customer=")
        #expect(empty.status == 400)
    }

    @Test func aHostileProductIdIsEscapedEverywhereItShows() throws {
        let world = CustomerWorld()
        let product = "com.example.<b>bold</b>\"'&"
        try world.ingest([(World.transaction("8100", product: product), World.renewal(original: "8100", product: product))],
                         userId: "u-hostile")
        let (status, body) = try Self.page(world, query: "customer=u-hostile")
        #expect(status == 200)
        #expect(body.contains("com.example.&lt;b&gt;bold&lt;/b&gt;&quot;&#39;&amp;"), "\(body)")
        #expect(!body.contains("<b>"))
        // The default view lists it among the active products, escaped as well.
        let (_, overview) = try Self.page(world, query: "environment=Sandbox")
        #expect(overview.contains("<td>com.example.&lt;b&gt;bold&lt;/b&gt;&quot;&#39;&amp;</td>"), "\(overview)")
        #expect(!overview.contains("<b>"))
    }
}
