import Foundation
import Testing
import TestSupport

/// `dashboard` over the HTTP event door: the sign-in form, a wrong token, the signed cookie
/// and its flags, a bearer token, the page's Content-Security-Policy, a method it refuses.
@Suite("dashboard over HTTP: sign-in form, cookie, bearer, CSP")
struct DashboardHTTPTests {
    static let reader = "dashboard-read-0123456789abcdef"
    static let admin = "dashboard-admin-0123456789abcdef"

    struct Answer { var status: Int; var headers: [String: String]; var body: String }

    static func call(_ method: String, query: String = "", headers: [String: String] = [:], body: String = "",
                     tokens: String = "ops:read:\(reader)") throws -> Answer {
        let event: [String: Any] = [
            "version": "2.0", "rawPath": "/dashboard", "rawQueryString": query, "body": body, "headers": headers,
            "requestContext": ["http": ["method": method, "path": "/dashboard"]], "isBase64Encoded": false,
        ]
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-http-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let result = try FunctionBinary(name: "dashboard").run(
            stdin: try JSONSerialization.data(withJSONObject: event),
            environment: ["STORE_URL": "sqlite:" + store, "STOREKEEPER_TOKENS": tokens, "STOREKEEPER_ADMIN_TOKEN": admin])
        let answer = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] ?? [:]
        var text = answer["body"] as? String ?? ""
        if answer["isBase64Encoded"] as? Bool == true { text = String(decoding: Data(base64Encoded: text) ?? Data(), as: UTF8.self) }
        var answered = (answer["headers"] as? [String: String] ?? [:]).reduce(into: [:]) { $0[$1.key.lowercased()] = $1.value }
        // Format 2.0 carries Set-Cookie in `cookies`.
        if let cookies = answer["cookies"] as? [String] { answered["set-cookie"] = cookies.joined(separator: "\n") }
        return Answer(status: answer["statusCode"] as? Int ?? 0, headers: answered, body: text)
    }

    static func signIn(_ token: String) throws -> Answer {
        try call("POST", headers: ["content-type": "application/x-www-form-urlencoded"], body: "token=\(token)")
    }

    @Test func withoutCredentialsTheFormWithTheStrictPolicy() throws {
        let answer = try Self.call("GET")
        #expect(answer.status == 200)
        #expect(answer.body.contains("<form method=\"post\" action=\"/dashboard\">"))
        #expect(!answer.body.contains("Active subscriptions"))
        #expect(answer.headers["content-type"] == "text/html; charset=utf-8")
        let policy = answer.headers["content-security-policy"] ?? ""
        #expect(policy.hasPrefix("default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'"))
        #expect(!answer.body.contains("<script"))
    }

    @Test func aWrongTokenIsTheFormAgainWith401() throws {
        let answer = try Self.signIn("not-the-token-0123456789abcdef")
        #expect(answer.status == 401)
        #expect(answer.body.contains("Sign-in failed."))
        #expect(answer.headers["set-cookie"] == nil)
    }

    @Test func aReadTokenSetsASignedCookieThatOpensThePage() throws {
        let signedIn = try Self.signIn(Self.reader)
        #expect(signedIn.status == 303)
        let cookie = try #require(signedIn.headers["set-cookie"])
        for flag in ["HttpOnly", "Secure", "SameSite=Strict", "Max-Age=28800", "Path=/dashboard"] {
            #expect(cookie.contains("; \(flag)"), "\(cookie)")
        }
        #expect(!cookie.contains(Self.reader))
        let pair = String(cookie.split(separator: ";")[0])
        #expect(pair.hasPrefix("storekeeper_dashboard=ops."))
        let page = try Self.call("GET", headers: ["cookie": "theme=dark; " + pair])
        #expect(page.status == 200)
        #expect(page.body.contains("Active subscriptions: <strong>0</strong>"), "\(page.body.prefix(300))")
        #expect(page.body.contains("Storekeeper: all apps, Production"))
        // A tampered cookie, or one whose token is gone, is the form again.
        let tampered = pair.dropLast() + (pair.hasSuffix("0") ? "1" : "0")
        #expect(try Self.call("GET", headers: ["cookie": String(tampered)]).body.contains("<form method=\"post\""))
        let revoked = try Self.call("GET", headers: ["cookie": pair], tokens: "other:read:other-read-0123456789abcdef")
        #expect(revoked.body.contains("<form method=\"post\""))
        #expect(!revoked.body.contains("Active subscriptions"))
    }

    @Test func aBearerTokenAndTheViews() throws {
        let sandbox = try Self.call("GET", query: "environment=Sandbox", headers: ["authorization": "Bearer \(Self.admin)"])
        #expect(sandbox.status == 200)
        #expect(sandbox.body.contains("Storekeeper: all apps, Sandbox"))
        #expect(sandbox.body.contains("Over time (90 days"))
        #expect(sandbox.body.contains("proceeds are Apple's business"))
        let hostile = try Self.call("GET", query: "app=%3Cscript%3Ex%3C%2Fscript%3E", headers: ["authorization": "Bearer \(Self.reader)"])
        #expect(hostile.body.contains("&lt;script&gt;x&lt;/script&gt;"))
        #expect(!hostile.body.contains("<script>"))
        let wrong = try Self.call("GET", query: "environment=Staging", headers: ["authorization": "Bearer \(Self.reader)"])
        #expect(wrong.status == 400)
        let put = try Self.call("PUT", headers: ["authorization": "Bearer \(Self.reader)"])
        #expect(put.status == 405)
        #expect(put.headers["allow"] == "GET, POST")
    }
}
