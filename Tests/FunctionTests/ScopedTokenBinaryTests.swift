import Foundation
import Testing

/// The scopes the real functions declare, through their built binaries over the HTTP event
/// door: a read token reads entitlements and nothing more, a wrong token is 401.
@Suite("Scoped bearer tokens through the binaries")
struct ScopedTokenBinaryTests {
    static let reader = "dashboard-read-0123456789abcdef"
    static let desk = "helpdesk-support-0123456789abcdef"
    static let environment = [
        "STOREKEEPER_ADMIN_TOKEN": "binary-admin-0123456789abcdef",
        "STOREKEEPER_TOKENS": "dashboard:read:\(reader),helpdesk:support:\(desk)",
    ]

    /// Enough for app-store-api to start (it is never reached: Apple is not asked).
    static let apiKey = [
        "APPSTORE_KEY_ID": "TESTKEY123", "APPSTORE_ISSUER_ID": "57246542-96fe-1a63-e053-0824d011072a",
        "APPSTORE_PRIVATE_KEY": "Tests/Fixtures/pki/appstore-api-key.p8", "APPSTORE_BUNDLE_ID": "com.example.storekeeper",
        "APPSTORE_API_BASE_URL": "http://127.0.0.1:9", "APPSTORE_ENVIRONMENT": "Sandbox",
    ]

    struct Answer {
        let status: Int
        let code: String?
        let body: [String: Any]?
        let exitCode: Int32
        let log: String
    }

    static func call(_ function: String, method: String, path: String, query: String = "", bearer: String,
                     body: String = "", extra: [String: String] = [:]) throws -> Answer {
        let event: [String: Any] = [
            "version": "2.0", "rawPath": path, "rawQueryString": query, "body": body,
            "headers": ["authorization": "Bearer \(bearer)"],
            "requestContext": ["http": ["method": method, "path": path]], "isBase64Encoded": false,
        ]
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("scoped-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let result = try FunctionBinary(name: function).run(
            stdin: try JSONSerialization.data(withJSONObject: event),
            environment: environment.merging(["STORE_URL": "sqlite:" + store]) { $1 }.merging(extra) { $1 })
        let answer = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] ?? [:]
        let body = (answer["body"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return Answer(status: answer["statusCode"] as? Int ?? 0, code: (body?["error"] as? [String: Any])?["code"] as? String, body: body,
                      exitCode: result.exitCode, log: result.stderrText)
    }

    @Test func aReadTokenReadsEntitlementsAndIsRefusedTheAPI() throws {
        for token in [Self.reader, Self.desk, Self.environment["STOREKEEPER_ADMIN_TOKEN"] ?? ""] {
            let read = try Self.call("get-entitlements", method: "GET", path: "/entitlements", query: "userId=u-1", bearer: token)
            #expect(read.status == 200, "\(read)")
        }
        let api = try Self.call("app-store-api", method: "POST", path: "/appstore/api", bearer: Self.reader, extra: Self.apiKey)
        #expect(api.status == 403)
        #expect(api.code == "insufficient_scope")
        #expect(api.exitCode == 65)
        #expect(!api.log.contains(Self.reader))
        #expect(try Self.call("app-store-api", method: "POST", path: "/appstore/api", bearer: Self.desk, extra: Self.apiKey).code
            == "insufficient_scope")
    }

    @Test func aWrongTokenIs401AndTheHelpSaysTheScope() throws {
        let wrong = try Self.call("get-entitlements", method: "GET", path: "/entitlements", query: "userId=u-1", bearer: "dashboard")
        #expect(wrong.status == 401)
        #expect(wrong.code == "unauthorized")
        let help = try FunctionBinary(name: "get-entitlements").run(stdin: Data(), arguments: ["--help"]).stdoutText
        #expect(help.contains("scope:       read "))
        #expect(help.contains("STOREKEEPER_TOKENS"))
    }

    /// A support token grants, and the audit trail names it; a read token may not.
    @Test func aSupportTokenGrantsUnderItsOwnNameAndAReadTokenIsRefused() throws {
        let request = #"{"userId": "user-1", "entitlement": "pro", "durationDays": 7, "reason": "outage compensation"}"#
        let app = ["APPSTORE_BUNDLE_ID": "com.example.storekeeper", "APPSTORE_ENVIRONMENT": "Sandbox"]
        let granted = try Self.call("grant-entitlement", method: "POST", path: "/customers/grants", bearer: Self.desk,
                                    body: request, extra: app)
        #expect(granted.status == 200, "\(granted)")
        #expect((granted.body?["grant"] as? [String: Any])?["grantedBy"] as? String == "helpdesk")
        let refused = try Self.call("grant-entitlement", method: "POST", path: "/customers/grants", bearer: Self.reader,
                                    body: request, extra: app)
        #expect(refused.status == 403)
        #expect(refused.code == "insufficient_scope")
    }
}
