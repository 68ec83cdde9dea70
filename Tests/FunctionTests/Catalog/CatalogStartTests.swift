import Foundation
import StorekeeperCore
import Testing

/// The catalog through the built binaries: read and checked at start (a mistake is exit 78
/// naming its field, before any request is looked at), replacing the APPSTORE_* app variables,
/// and signed data checked against the app its bundle id names.
@Suite("Catalog: read at start by the binaries")
struct CatalogStartTests {
    static let roots = FunctionBinary.repositoryRoot.appendingPathComponent("Tests/Fixtures/pki/root.pem").path

    /// Two apps; B takes only the sandbox and lets its sandbox purchases grant nothing.
    static let twoApps = """
        {"apps": [{"bundleId": "\(TestPKI.bundleId)", "appAppleId": \(TestPKI.appAppleId)},
                  {"bundleId": "com.example.second", "environments": ["Sandbox"], "sandboxGrants": false}],
         "entitlements": {"pro": {"description": "Paid features"}},
         "products": {"com.example.pro.monthly": {"bundleId": "\(TestPKI.bundleId)", "entitlements": ["pro"]},
                      "com.example.second.monthly": {"bundleId": "com.example.second", "entitlements": ["pro"]}}}
        """

    struct Answer {
        var result: FunctionBinary.Result
        var object: [String: Any]
        var error: [String: Any] { object["error"] as? [String: Any] ?? [:] }
    }

    /// verify-signed-data with the catalog `text` (written to a file) and `extra` variables.
    static func verify(_ request: [String: Any], catalog text: String?, extra: [String: String] = [:]) throws -> Answer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = ["APPSTORE_ROOT_CERTS": roots, "APPSTORE_ONLINE_CHECKS": "off",
                           "STORE_URL": "sqlite:\(folder.path)/store.db"].merging(extra) { _, new in new }
        if let text {
            let path = folder.appendingPathComponent("catalog.json").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            environment["STOREKEEPER_CATALOG"] = path
        }
        let result = try FunctionBinary(name: "verify-signed-data")
            .run(stdin: JSONSerialization.data(withJSONObject: request), environment: environment)
        let object = (try? JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]) ?? [:]
        return Answer(result: result, object: object)
    }

    @Test(arguments: [
        (#"{"apps": [{"bundleId": "com.a", "appAppleId": 1}], "products": {"com.x": {"type": "Subscription"}}}"#,
         #"products["com.x"].type: unknown product type"#),
        (#"{"apps": [{"bundleId": "com.a", "appAppleId": 1}], "products": {"p": {}, "p": {}}}"#,
         #"products["p"]: is listed twice"#),
        (#"{"apps": [{"bundleId": "com.a", "appAppleId": 1}], "entitlements": {"pro": {}}}"#,
         #"entitlements["pro"]: no product grants it"#),
        (#"{"apps": [{"bundleId": "com.a"}]}"#, "apps[0].appAppleId: is required when Production is accepted"),
        (#"{"apps": [{"bundleId": "com.a", "appAppleId": 1, "sandboxGrant": true}]}"#, "apps[0].sandboxGrant: unknown key"),
        ("not json", "not strict JSON"),
    ])
    func aMistakeIsExit78NamingItsField(catalog: String, message: String) throws {
        let answer = try Self.verify(["signedData": "a.b.c"], catalog: catalog)
        #expect(answer.result.exitCode == 78, "\(answer.result.stdoutText) \(answer.result.stderrText)")
        #expect(answer.error["code"] as? String == "configuration_error")
        let text = answer.error["message"] as? String ?? ""
        #expect(text.hasPrefix("STOREKEEPER_CATALOG "), "\(text)")
        #expect(text.contains(message), "\(text)")
    }

    @Test func anUnreadableCatalogIsExit78() throws {
        let answer = try Self.verify(["signedData": "a.b.c"], catalog: nil, extra: ["STOREKEEPER_CATALOG": "/nonexistent/catalog.json"])
        #expect(answer.result.exitCode == 78)
        #expect((answer.error["message"] as? String ?? "").contains("cannot read /nonexistent/catalog.json"))
    }

    @Test func theAppVariablesBesideACatalogAreRefused() throws {
        let answer = try Self.verify(["signedData": "a.b.c"], catalog: Self.twoApps, extra: ["APPSTORE_BUNDLE_ID": TestPKI.bundleId])
        #expect(answer.result.exitCode == 78)
        #expect((answer.error["message"] as? String ?? "").contains("APPSTORE_BUNDLE_ID set beside STOREKEEPER_CATALOG"))
    }

    @Test func signedDataIsCheckedAgainstTheAppItNames() throws {
        // App A accepts both environments, B only the sandbox: each by its own rules.
        let forA = try TestPKI.sign(TestPKI.transaction(environment: "Production"))
        let a = try Self.verify(["signedData": forA], catalog: Self.twoApps)
        #expect(a.result.exitCode == 0, "\(a.result.stdoutText)")
        #expect(a.object["valid"] as? Bool == true)

        let forB = try TestPKI.sign(TestPKI.transaction(environment: "Sandbox", bundleId: "com.example.second"))
        let b = try Self.verify(["signedData": forB], catalog: Self.twoApps)
        #expect(b.result.exitCode == 0, "\(b.result.stdoutText)")
        #expect(b.object["valid"] as? Bool == true)

        let bInProduction = try TestPKI.sign(TestPKI.transaction(environment: "Production", bundleId: "com.example.second"))
        let refused = try Self.verify(["signedData": bInProduction], catalog: Self.twoApps)
        #expect(refused.result.exitCode == 65)
        #expect(refused.error["code"] as? String == "INVALID_ENVIRONMENT")

        let other = try TestPKI.sign(TestPKI.transaction(bundleId: "com.example.third"))
        let unknown = try Self.verify(["signedData": other], catalog: Self.twoApps)
        #expect(unknown.error["code"] as? String == "INVALID_APP_IDENTIFIER")
        #expect((unknown.error["message"] as? String ?? "").contains("com.example.storekeeper or com.example.second"))
    }

    @Test func aNotificationForOneAppCarriesNoOtherAppsTransaction() throws {
        let foreign = try TestPKI.sign(TestPKI.transaction(environment: "Sandbox", bundleId: "com.example.second"))
        let notification = try TestPKI.sign(TestPKI.notification(environment: "Sandbox", transactionJWS: foreign))
        let answer = try Self.verify(["signedData": notification], catalog: Self.twoApps)
        #expect(answer.error["code"] as? String == "INVALID_APP_IDENTIFIER", "\(answer.result.stdoutText)")
        #expect((answer.error["message"] as? String ?? "").contains("signedTransactionInfo is for com.example.second"))
    }
}
