import Foundation
import Testing
import TestSupport

/// One team key serves several apps: each call's token carries the `bid` of the app the
/// request names, which the fake App Store checks as Apple does; with several apps a request
/// that names none is refused rather than guessed.
@Suite("Catalog: the App Store Server API per app")
struct CatalogAPITests {
    static let second = "com.example.second"

    static let catalog = """
        {"apps": [{"bundleId": "\(FakeAppStore.bundleId)", "appAppleId": \(FakeAppStore.appAppleId)},
                  {"bundleId": "\(second)", "appAppleId": 2222222222}],
         "entitlements": {"pro": {}},
         "products": {"com.example.pro.monthly": {"bundleId": "\(second)", "entitlements": ["pro"]}}}
        """

    /// The fake answers as Apple would for the second app only.
    static func startFake() throws -> FakeAppStore {
        let fake = try FakeAppStore.start()
        var scenario = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: FakeAppStore.defaultScenario))) as? [String: Any])
        scenario["bundleId"] = second
        try fake.loadScenario(scenario)
        return fake
    }

    static func environment(_ fake: FakeAppStore, catalogPath: String) -> [String: String] {
        var environment = AppStoreAPIFunctionTests.environment(fake)
        environment["APPSTORE_BUNDLE_ID"] = nil
        environment["APPSTORE_APP_APPLE_ID"] = nil
        environment["STOREKEEPER_CATALOG"] = catalogPath
        return environment
    }

    static func writeCatalog() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-api-\(UUID().uuidString).json")
        try Data(catalog.utf8).write(to: url)
        return url
    }

    @Test func eachCallCarriesTheBidOfTheAppItNames() throws {
        let fake = try Self.startFake()
        defer { fake.stop() }
        let catalog = try Self.writeCatalog()
        defer { try? FileManager.default.removeItem(at: catalog) }
        let environment = Self.environment(fake, catalogPath: catalog.path)

        let answer = try AppStoreAPIFunctionTests.run("app-store-api", [
            "operation": "getTransactionInfo", "transactionId": "1000000001", "bundleId": Self.second, "decode": true,
        ], environment)
        #expect(answer.exitCode == 0, "\(answer.json) \(answer.stderr)")
        #expect(answer.json["bundleId"] as? String == Self.second)
        let decoded = try #require((answer.json["response"] as? [String: Any])?["transactionInfo"] as? [String: Any])
        #expect(decoded["verificationError"] == nil && decoded["bundleId"] as? String == Self.second)
        #expect(try fake.requests().last?["auth"] as? String == "ok")

        // The other app's token is not this app's: Apple refuses it.
        let refused = try AppStoreAPIFunctionTests.run("app-store-api", [
            "operation": "getTransactionInfo", "transactionId": "1000000001", "bundleId": FakeAppStore.bundleId,
        ], environment)
        #expect(refused.exitCode == 78, "\(refused.json)")
        #expect(try fake.requests().last?["auth"] as? String == "wrong bid")
    }

    @Test func withSeveralAppsARequestNamesOne() throws {
        let fake = try Self.startFake()
        defer { fake.stop() }
        let catalog = try Self.writeCatalog()
        defer { try? FileManager.default.removeItem(at: catalog) }
        let environment = Self.environment(fake, catalogPath: catalog.path)
        for (function, request) in [
            ("app-store-api", ["operation": "getTransactionInfo", "transactionId": "1000000001"] as [String: Any]),
            ("app-store-api", ["operation": "getTransactionInfo", "transactionId": "1000000001", "bundleId": "com.example.third"]),
            ("test-notification", ["timeoutSeconds": 1] as [String: Any]),
            ("recover-notifications", ["startDate": 1_767_225_600_000] as [String: Any]),
        ] {
            let answer = try AppStoreAPIFunctionTests.run(function, request, environment)
            #expect(answer.exitCode == 65, "\(function) \(answer.json)")
            let error = answer.json["error"] as? [String: Any] ?? [:]
            let message = error["message"] as? String ?? ""
            #expect(error["code"] as? String == "invalid_request")
            #expect(message.contains("com.example.storekeeper, com.example.second"), "\(function) \(answer.json)")
        }
        #expect(try fake.requests().isEmpty, "nothing was asked of Apple")
    }

    @Test func testNotificationAndRecoveryAskForTheAppNamed() throws {
        let fake = try Self.startFake()
        defer { fake.stop() }
        let catalog = try Self.writeCatalog()
        defer { try? FileManager.default.removeItem(at: catalog) }
        let environment = Self.environment(fake, catalogPath: catalog.path)

        let test = try AppStoreAPIFunctionTests.run("test-notification", [
            "bundleId": Self.second, "timeoutSeconds": 5, "pollIntervalMilliseconds": 10,
        ], environment)
        #expect(test.json["bundleId"] as? String == Self.second, "\(test.json) \(test.stderr)")
        #expect(test.json["delivered"] as? Bool == true)

        let recovery = try AppStoreAPIFunctionTests.run("recover-notifications", [
            "bundleId": Self.second, "startDate": 1_767_225_600_000, "endDate": 1_767_225_600_000 + 30 * 86_400_000,
        ], environment)
        #expect(recovery.exitCode == 0, "\(recovery.json) \(recovery.stderr)")
        let requests = try fake.requests()
        #expect(!requests.isEmpty && requests.allSatisfy { $0["auth"] as? String == "ok" }, "\(requests)")
    }
}

/// migrate-receipt with several apps: a receipt names its app, which must be one of the
/// catalog's; a request may insist on one.
@Suite("Catalog: legacy receipts of several apps")
struct CatalogReceiptTests {
    static func dryRun(_ fields: [String: Any]) throws -> (json: [String: Any], exitCode: Int32) {
        let catalog = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-receipts-\(UUID().uuidString).json")
        try Data("""
            {"apps": [{"bundleId": "com.example.storekeeper", "appAppleId": 1234567890},
                      {"bundleId": "com.example.second", "appAppleId": 2222222222}]}
            """.utf8).write(to: catalog)
        defer { try? FileManager.default.removeItem(at: catalog) }
        let receipt = try String(contentsOf: FunctionBinary.repositoryRoot.appendingPathComponent("Tests/Fixtures/receipts/receipt-single.b64"),
                                 encoding: .utf8)
        var request: [String: Any] = ["receiptData": receipt, "dryRun": true]
        request.merge(fields) { $1 }
        let result = try FunctionBinary(name: "migrate-receipt").run(stdin: JSONSerialization.data(withJSONObject: request), environment: [
            "APPSTORE_RECEIPT_ROOT_CERTS": "Tests/Fixtures/receipts/pki/receipt-root.pem", "STOREKEEPER_CATALOG": catalog.path,
            "STORE_URL": "sqlite:" + FileManager.default.temporaryDirectory.appendingPathComponent("receipts-\(UUID().uuidString).db").path,
        ])
        return ((try? JSONSerialization.jsonObject(with: result.stdout)) as? [String: Any] ?? [:], result.exitCode)
    }

    @Test func aReceiptOfAnyCatalogAppIsTakenUnlessTheRequestNamesAnother() throws {
        let any = try Self.dryRun([:])
        #expect(any.json["verified"] as? Bool == true, "\(any.json)")
        let named = try Self.dryRun(["bundleId": "com.example.storekeeper"])
        #expect(named.json["verified"] as? Bool == true, "\(named.json)")

        let other = try Self.dryRun(["bundleId": "com.example.second"])
        #expect(other.json["verified"] as? Bool == false)
        #expect((other.json["error"] as? [String: Any])?["code"] as? String == "INVALID_APP_IDENTIFIER", "\(other.json)")

        let unknown = try Self.dryRun(["bundleId": "com.example.third"])
        #expect(unknown.exitCode == 65)
        #expect((unknown.json["error"] as? [String: Any])?["code"] as? String == "invalid_request", "\(unknown.json)")
    }
}
