import Foundation
import Testing
import TestSupport

/// `migrate-receipt` as a black box, with the fake verifyReceipt endpoint for the legacy track.
@Suite("migrate-receipt binary", .enabled(if: FakeVerifyReceiptServer.python != nil, "python3 not installed"))
struct MigrateReceiptBinaryTests {
    static let secret = VerifyReceiptClientTests.secret

    /// `appStore`: where the App Store Server API is (the fake's base URL); a closed port by
    /// default, for tests that stop before the migration asks it.
    static func environment(_ server: FakeVerifyReceiptServer, secret: String = secret,
                            appStore: String = "http://127.0.0.1:9") -> [String: String] {
        [
            "APPSTORE_KEY_ID": FakeAppStore.keyId,
            "APPSTORE_ISSUER_ID": FakeAppStore.issuerId,
            "APPSTORE_PRIVATE_KEY": FakeAppStore.apiKeyPath,
            "APPSTORE_API_BASE_URL": appStore,
            "APPSTORE_ROOT_CERTS": FakeAppStore.repositoryRoot.appendingPathComponent("Tests/Fixtures/pki/root.pem").path,
            "APPSTORE_APP_APPLE_ID": FakeAppStore.appAppleId,
            "APPSTORE_ONLINE_CHECKS": "off",
            "APPSTORE_RECEIPT_ROOT_CERTS": VerifyReceiptClientTests.roots,
            "APPSTORE_BUNDLE_ID": "com.example.storekeeper",
            "APPSTORE_SHARED_SECRET": secret,
            "APPSTORE_VERIFY_RECEIPT_URL": server.baseURL,
            // 2026-06-01T11:00Z: the sandbox subscription expired at 10:00.
            "STOREKEEPER_NOW": "2026-06-01T11:00:00Z",
            "STORE_URL": "sqlite::memory:",
        ]
    }

    static func request(_ receipt: String, _ fields: [String: Any]) throws -> Data {
        var body = fields
        body["receiptData"] = try VerifyReceiptClientTests.receiptData(receipt)
        return try JSONSerialization.data(withJSONObject: body)
    }

    static func answer(_ result: FunctionBinary.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "stdout: \(result.stdoutText)")
    }

    @Test func legacyCheckGoesToTheSandboxOn21007AndInfersTheStatus() throws {
        let server = try FakeVerifyReceiptServer(secret: Self.secret, rootsPath: VerifyReceiptClientTests.roots, renewals: [
            "1000000000000001": ["is_in_billing_retry_period": "1", "expiration_intent": "2",
                                 "grace_period_expires_date_ms": "1780401600000"],  // 2026-06-02T12:00Z
        ])
        defer { server.stop() }
        let appStore = try FakeAppStore.start(scenario: MigrateReceiptMigrationTests.scenario)
        defer { appStore.stop() }
        let result = try FunctionBinary(name: "migrate-receipt").run(
            stdin: try Self.request("receipt-several", ["legacyCheck": true]), environment: Self.environment(server, appStore: appStore.baseURL))
        #expect(result.exitCode == 0, "stderr: \(result.stderrText)")
        let answer = try Self.answer(result)
        #expect(answer["verified"] as? Bool == true)
        let legacy = try #require(answer["legacy"] as? [String: Any])
        #expect(legacy["redirectedToSandbox"] as? Bool == true)
        #expect(legacy["environment"] as? String == "Sandbox")
        #expect(legacy["statusName"] as? String == "valid")
        let subscriptions = try #require(legacy["subscriptions"] as? [[String: Any]])
        #expect(subscriptions.map { $0["originalTransactionId"] as? String } == ["1000000000000001"])
        #expect(subscriptions.first?["state"] as? String == "grace")
        #expect(subscriptions.first?["expirationIntent"] as? Int == 2)
        #expect((answer["migration"] as? [String: Any])?["performed"] as? Bool == true)
        // Apple renewed it on 06-01: the legacy fields (grace) and the new track (active) differ.
        let disagreements = try #require(answer["disagreements"] as? [[String: Any]])
        #expect(disagreements.map { $0["legacyStatus"] as? String } == ["grace"])
        #expect(disagreements.map { $0["newStatus"] as? String } == ["active"])
        #expect(server.requests().map { $0["path"] as? String } == ["/buy/verifyReceipt", "/sandbox/verifyReceipt"])
        // The shared secret never reaches a log.
        #expect(!result.stderrText.contains(Self.secret))
    }

    @Test func aDryRunAsksNobody() throws {
        let server = try FakeVerifyReceiptServer(secret: Self.secret, rootsPath: VerifyReceiptClientTests.roots)
        defer { server.stop() }
        let result = try FunctionBinary(name: "migrate-receipt").run(
            stdin: try Self.request("receipt-single", ["dryRun": true]), environment: Self.environment(server))
        #expect(result.exitCode == 0)
        #expect(try Self.answer(result)["verified"] as? Bool == true)
        #expect(server.requests().isEmpty)
    }

    /// 21004 is our configuration's fault, not the caller's receipt: exit 78, naming the variable.
    @Test func aWrongSharedSecretIsAConfigurationErrorWithApplesStatus() throws {
        let server = try FakeVerifyReceiptServer(secret: Self.secret, rootsPath: VerifyReceiptClientTests.roots)
        defer { server.stop() }
        let result = try FunctionBinary(name: "migrate-receipt").run(
            stdin: try Self.request("receipt-single", ["legacyCheck": true]), environment: Self.environment(server, secret: "wrong"))
        #expect(result.exitCode == 78)
        let error = try #require(try Self.answer(result)["error"] as? [String: Any])
        #expect(error["code"] as? String == "configuration_error")
        #expect((error["message"] as? String)?.contains("21004 (sharedSecretMismatch)") == true)
        #expect((error["message"] as? String)?.contains("APPSTORE_SHARED_SECRET") == true)
    }

    /// The cheap checks of who the purchases go to come before the receipt's signature and
    /// before the API key is looked for: a forged receipt and a missing key are not reached.
    @Test func badLinkingFieldsAreRefusedBeforeTheReceiptAndTheKey() throws {
        let server = try FakeVerifyReceiptServer(secret: Self.secret, rootsPath: VerifyReceiptClientTests.roots)
        defer { server.stop() }
        var environment = Self.environment(server)
        environment["APPSTORE_KEY_ID"] = nil
        func refusal(_ fields: [String: Any]) throws -> (exitCode: Int32, code: String?, message: String?) {
            let result = try FunctionBinary(name: "migrate-receipt").run(stdin: try Self.request("receipt-tampered", fields), environment: environment)
            let error = try Self.answer(result)["error"] as? [String: Any]
            return (result.exitCode, error?["code"] as? String, error?["message"] as? String)
        }
        let token = try refusal(["userId": "user-1", "appAccountToken": "not-a-uuid"])
        #expect(token.exitCode == 65)
        #expect(token.code == "invalid_request")
        #expect(token.message == "appAccountToken must be a UUID")
        let user = try refusal(["userId": String(repeating: "u", count: 129)])
        #expect(user.code == "invalid_request")
        #expect(user.message == "userId must be 1 to 128 characters")
        let session = try refusal(["sessionToken": String(repeating: "0", count: 64)])
        #expect(session.exitCode == 65)
        #expect(session.code == "invalid_session")
        #expect(server.requests().isEmpty)
    }

    @Test func aForgedReceiptNeverReachesVerifyReceipt() throws {
        let server = try FakeVerifyReceiptServer(secret: Self.secret, rootsPath: VerifyReceiptClientTests.roots)
        defer { server.stop() }
        let result = try FunctionBinary(name: "migrate-receipt").run(
            stdin: try Self.request("receipt-tampered", ["legacyCheck": true]), environment: Self.environment(server))
        #expect(result.exitCode == 65)
        #expect((try Self.answer(result)["error"] as? [String: Any])?["code"] as? String == "VERIFICATION_FAILURE")
        #expect(server.requests().isEmpty)
    }

    @Test func appleUnreachableIsRetryable() throws {
        let server = try FakeVerifyReceiptServer(secret: Self.secret, rootsPath: VerifyReceiptClientTests.roots)
        let environment = Self.environment(server)
        server.stop()
        let result = try FunctionBinary(name: "migrate-receipt").run(
            stdin: try Self.request("receipt-single", ["legacyCheck": true]), environment: environment)
        #expect(result.exitCode == 75)
        #expect((try Self.answer(result)["error"] as? [String: Any])?["code"] as? String == "verify_receipt_unavailable")
    }
}
