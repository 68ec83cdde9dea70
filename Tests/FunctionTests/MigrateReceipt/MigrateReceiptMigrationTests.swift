import Foundation
import SQLiteStore
import StorekeeperCore
import Testing
import TestSupport

/// `migrate-receipt` moving a receipt to the App Store Server API, as a black box: the built
/// binary against the fake App Store (scenario `receipts.json`: the test receipts' purchases
/// in the sandbox, with a renewal on 2026-06-01 the receipt does not know) and, for the legacy
/// track, the fake verifyReceipt.
@Suite("migrate-receipt: the move to the App Store Server API",
       .enabled(if: FakeVerifyReceiptServer.python != nil, "python3 not installed"))
struct MigrateReceiptMigrationTests {
    static let scenario = FakeAppStore.repositoryRoot.appendingPathComponent("Tests/Support/fakes/scenarios/receipts.json").path
    static let token = "5b1a0b44-2f0e-4f53-9d6e-2b8f8f0f3c11"
    static let subscription = "1000000000000001"
    static let lifetime = "1000000000000003"
    static let consumable = "1000000000000004"

    static func environment(_ fake: FakeAppStore, store: String, _ extra: [String: String] = [:]) -> [String: String] {
        var environment = [
            "APPSTORE_KEY_ID": FakeAppStore.keyId,
            "APPSTORE_ISSUER_ID": FakeAppStore.issuerId,
            "APPSTORE_PRIVATE_KEY": FakeAppStore.apiKeyPath,
            "APPSTORE_BUNDLE_ID": FakeAppStore.bundleId,
            "APPSTORE_API_BASE_URL": fake.baseURL,
            "APPSTORE_ROOT_CERTS": FakeAppStore.repositoryRoot.appendingPathComponent("Tests/Fixtures/pki/root.pem").path,
            "APPSTORE_APP_APPLE_ID": FakeAppStore.appAppleId,
            "APPSTORE_ONLINE_CHECKS": "off",
            "APPSTORE_RECEIPT_ROOT_CERTS": VerifyReceiptClientTests.roots,
            // 2026-06-01T11:00Z: the receipt's last period ended at 10:00; Apple renewed it.
            "STOREKEEPER_NOW": "2026-06-01T11:00:00Z",
            "STORE_URL": "sqlite:" + store,
            // Several migrations in a row: the shared bucket (default 1 a second) is not under test here.
            "MIGRATE_REQUESTS_PER_SECOND": "100",
        ]
        environment.merge(extra) { $1 }
        return environment
    }

    static func storePath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("migrate-receipt-\(UUID().uuidString).db").path
    }

    static func run(_ function: String, _ request: [String: Any], _ environment: [String: String]) throws -> (json: [String: Any], exitCode: Int32, stderr: String) {
        var body = request
        if let receipt = body["receipt"] as? String {
            body["receipt"] = nil
            body["receiptData"] = try VerifyReceiptClientTests.receiptData(receipt)
        }
        let result = try FunctionBinary(name: function).run(stdin: try JSONSerialization.data(withJSONObject: body), environment: environment)
        let json = (try? JSONSerialization.jsonObject(with: result.stdout)) as? [String: Any]
        return (json ?? [:], result.exitCode, result.stderrText)
    }

    static func subscriptions(_ answer: [String: Any]) throws -> [String: [String: Any]] {
        let migration = try #require(answer["migration"] as? [String: Any], "\(answer)")
        #expect(migration["performed"] as? Bool == true)
        let list = try #require((migration["outcome"] as? [String: Any])?["subscriptions"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["originalTransactionId"] as? String ?? "", $0) })
    }

    /// Every entitlement key's version: a write, even of the same bytes, raises it.
    static func entitlementVersions(_ path: String, _ ids: [String]) throws -> [String: Int64] {
        let store = try SQLiteStore(path: path)
        var versions: [String: Int64] = [:]
        for id in ids { versions[id] = try store.get(StoreKeys.entitlement(SubscriptionRef(bundleId: FakeAppStore.bundleId, originalTransactionId: id)))?.version }
        return versions
    }

    @Test func everyPurchaseMovesToTheUserWithItsTokenAndARerunChangesNothing() throws {
        let fake = try FakeAppStore.start(scenario: Self.scenario)
        defer { fake.stop() }
        let path = Self.storePath()
        // The user signed in with Apple before: their account holds the appAccountToken.
        do {
            let store = try SQLiteStore(path: path)
            try AccountRepository(store: store, dataKey: nil).save(AppleAccount(userId: "user-1", sub: "sub-1", appAccountToken: Self.token, createdAt: 0))
            try EntitlementRepository(store: store).assign(appAccountToken: Self.token, toUser: "user-1")
        }
        let environment = Self.environment(fake, store: path)
        let request: [String: Any] = ["receipt": "receipt-several", "userId": "user-1"]

        let first = try Self.run("migrate-receipt", request, environment)
        #expect(first.exitCode == 0, "\(first.stderr)")
        let outcome = try Self.subscriptions(first.json)
        #expect(outcome.keys.sorted() == [Self.subscription, Self.lifetime, Self.consumable])
        #expect(outcome[Self.subscription]?["status"] as? String == "active")
        #expect(outcome[Self.subscription]?["statusBefore"] == nil)
        #expect(outcome[Self.subscription]?["linkedToUser"] as? Bool == true)
        #expect(outcome[Self.subscription]?["appAccountTokenSet"] as? Bool == true)
        #expect((outcome[Self.subscription]?["eventsApplied"] as? Int ?? 0) >= 3)
        #expect(outcome[Self.lifetime]?["status"] as? String == "lifetime")
        #expect(outcome[Self.lifetime]?["appAccountTokenSet"] as? Bool == true)
        #expect(outcome[Self.consumable]?["status"] == nil, "a consumable grants no entitlement")
        #expect(outcome[Self.consumable]?["appAccountTokenSet"] as? Bool == false)

        // Set App Account Token, in the sandbox (where the receipt is from), for the two
        // purchases that carried no token, with the user's token.
        let puts = try fake.requests().filter { $0["method"] as? String == "PUT" }
        #expect(puts.map { $0["path"] as? String ?? "" }.sorted() == [
            "/inApps/v1/transactions/\(Self.subscription)/appAccountToken",
            "/inApps/v1/transactions/\(Self.lifetime)/appAccountToken",
        ])
        #expect(puts.allSatisfy { $0["environment"] as? String == "Sandbox" && $0["status"] as? Int == 200 })
        #expect(puts.allSatisfy { ($0["body"] as? [String: Any])?["appAccountToken"] as? String == Self.token })
        // Every page of the history was read (two a page in this scenario).
        let history = try fake.requests().filter { ($0["path"] as? String ?? "").hasPrefix("/inApps/v2/history/") }
        #expect(history.contains { (($0["query"] as? [String: Any])?["revision"]) != nil })

        // get-entitlements sees them for the user, with Apple's renewal info and the token.
        let entitlements = try Self.run("get-entitlements", ["userId": "user-1"], environment)
        #expect(entitlements.exitCode == 0, "\(entitlements.stderr)")
        #expect(entitlements.json["active"] as? Bool == true)
        let list = try #require(entitlements.json["entitlements"] as? [[String: Any]])
        #expect(list.map { $0["originalTransactionId"] as? String } == [Self.subscription, Self.lifetime])
        #expect(list.first?["latestTransactionId"] as? String == "1000000000000005")
        #expect(list.first?["autoRenew"] as? Bool == true)
        #expect(list.first?["appAccountToken"] as? String == Self.token)

        // A second run: nothing new is applied, nothing is written, no token is set again.
        let versions = try Self.entitlementVersions(path, [Self.subscription, Self.lifetime])
        try fake.clearLog()
        let second = try Self.run("migrate-receipt", request, environment)
        #expect(second.exitCode == 0, "\(second.stderr)")
        let again = try Self.subscriptions(second.json)
        #expect(again.values.allSatisfy { $0["eventsApplied"] as? Int == 0 }, "\(again)")
        #expect(again.values.allSatisfy { $0["appAccountTokenSet"] as? Bool == false })
        #expect(again[Self.subscription]?["statusBefore"] as? String == "active")
        #expect(try fake.requests().allSatisfy { $0["method"] as? String == "GET" })
        #expect(try Self.entitlementVersions(path, [Self.subscription, Self.lifetime]) == versions)
    }

    @Test func theLegacyTrackIsRecordedBesideTheNewOneAndDisagreementsReported() throws {
        let fake = try FakeAppStore.start(scenario: Self.scenario)
        defer { fake.stop() }
        let legacy = try FakeVerifyReceiptServer(secret: MigrateReceiptBinaryTests.secret, rootsPath: VerifyReceiptClientTests.roots)
        defer { legacy.stop() }
        let path = Self.storePath()
        let environment = Self.environment(fake, store: path, [
            "APPSTORE_SHARED_SECRET": MigrateReceiptBinaryTests.secret, "APPSTORE_VERIFY_RECEIPT_URL": legacy.baseURL,
        ])
        let answer = try Self.run("migrate-receipt", ["receipt": "receipt-several", "legacyCheck": true], environment)
        #expect(answer.exitCode == 0, "\(answer.stderr)")
        // The receipt's last period ended at 10:00 and verifyReceipt knows no renewal: expired.
        // Apple's App Store Server API has the 06-01 renewal: active.
        let disagreements = try #require(answer.json["disagreements"] as? [[String: Any]])
        #expect(disagreements.count == 1)
        #expect(disagreements.first?["originalTransactionId"] as? String == Self.subscription)
        #expect(disagreements.first?["legacyStatus"] as? String == "expired")
        #expect(disagreements.first?["newStatus"] as? String == "active")
        #expect(answer.stderr.contains("legacy_track_disagrees"))

        let store = try SQLiteStore(path: path)
        let audit = try #require(try ReceiptMigrationAudit.load(SubscriptionRef(bundleId: FakeAppStore.bundleId, originalTransactionId: Self.subscription), from: store))
        #expect(audit.legacyStatus == "expired")
        #expect(audit.newStatus == "active")
        #expect(audit.agree == false)
        #expect(audit.environment == "Sandbox")
        #expect(audit.recordedAt == 1_780_311_600_000)
        // Kept: it is the migration's audit, not a cache.
        #expect(try store.get(StoreKeys.receiptMigration(SubscriptionRef(bundleId: FakeAppStore.bundleId, originalTransactionId: Self.subscription))) != nil)
    }

    @Test func appleFailingPartWayIsRetryableAndARerunFinishes() throws {
        let fake = try FakeAppStore.start(scenario: Self.scenario)
        defer { fake.stop() }
        let path = Self.storePath()
        let environment = Self.environment(fake, store: path, ["APPSTORE_API_TIMEOUT_SECONDS": "2"])
        // The history answers; Get All Subscription Statuses answers 500 every time.
        try fake.queueFaults(Array(repeating: ["kind": "status", "status": 500, "path": "/inApps/v1/subscriptions"], count: 30))
        let failed = try Self.run("migrate-receipt", ["receipt": "receipt-several", "userId": "user-2"], environment)
        #expect(failed.exitCode == 75, "\(failed.stderr)")
        let error = try #require(failed.json["error"] as? [String: Any], "\(failed.json)")
        #expect(error["retryable"] as? Bool == true)
        #expect(try fake.requests().contains { ($0["path"] as? String ?? "").hasPrefix("/inApps/v1/subscriptions/") && $0["status"] as? Int == 500 })

        try fake.clearFaults()
        let rerun = try Self.run("migrate-receipt", ["receipt": "receipt-several", "userId": "user-2"], environment)
        #expect(rerun.exitCode == 0, "\(rerun.stderr)")
        let outcome = try Self.subscriptions(rerun.json)
        #expect(outcome[Self.subscription]?["status"] as? String == "active")
        #expect(outcome[Self.subscription]?["linkedToUser"] as? Bool == true)
        // What the failed run did not get to (the renewal info) is applied now.
        #expect((outcome[Self.subscription]?["eventsApplied"] as? Int ?? 0) >= 1)
        let entitlements = try Self.run("get-entitlements", ["userId": "user-2"], environment)
        let list = try #require(entitlements.json["entitlements"] as? [[String: Any]])
        #expect(list.map { $0["originalTransactionId"] as? String } == [Self.subscription, Self.lifetime])
        #expect(list.first?["autoRenew"] as? Bool == true)

        let third = try Self.run("migrate-receipt", ["receipt": "receipt-several", "userId": "user-2"], environment)
        #expect(try Self.subscriptions(third.json).values.allSatisfy { $0["eventsApplied"] as? Int == 0 })
    }

    /// A signed transaction that verifies but does not decode is noted on its id and skipped,
    /// and so is one without a transactionId (not a transaction at all: INVALID_JWT_FORMAT at
    /// verification, since each signed field must be the kind it names): the rest is applied
    /// and a rerun does not stop at the same place.
    @Test func anUnusableSignedTransactionIsNotedAndTheRestApplied() throws {
        let fake = try FakeAppStore.start(scenario: Self.scenario)
        defer { fake.stop() }
        var scenario = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.scenario))) as? [String: Any])
        var environments = try #require(scenario["environments"] as? [String: Any])
        var sandbox = try #require(environments["Sandbox"] as? [String: Any])
        var customers = try #require(sandbox["customers"] as? [[String: Any]])
        var transactions = try #require(customers.first?["transactions"] as? [[String: Any]])
        transactions.append([
            "originalTransactionId": Self.lifetime, "productId": "com.example.lifetime", "type": "Non-Consumable",
            "purchaseDate": 1_769_934_700_000, "signedDate": 1_780_309_800_000,
        ])
        transactions.append([
            "transactionId": "1000000000000007", "originalTransactionId": Self.subscription, "productId": "com.example.pro.monthly",
            "type": "Auto-Renewable Subscription", "purchaseDate": 1_769_934_800_000, "quantity": "many",
        ])
        customers[0]["transactions"] = transactions
        sandbox["customers"] = customers
        environments["Sandbox"] = sandbox
        scenario["environments"] = environments
        try fake.loadScenario(scenario)
        let environment = Self.environment(fake, store: Self.storePath())

        for run in 1...2 {
            let answer = try Self.run("migrate-receipt", ["receipt": "receipt-several"], environment)
            #expect(answer.exitCode == 0, "run \(run): \(answer.stderr)")
            let outcome = try Self.subscriptions(answer.json)
            #expect(outcome[Self.lifetime]?["status"] as? String == "lifetime", "run \(run)")
            #expect(outcome.values.contains { $0["failure"] as? String == "invalid_payload" }, "run \(run): \(outcome)")
            #expect(outcome[Self.subscription]?["status"] as? String == "active", "run \(run)")
            #expect(answer.stderr.contains("INVALID_JWT_FORMAT") && answer.stderr.contains("invalid_payload"), "run \(run)")
        }
    }

    @Test func aProductionReceiptFallsBackToTheSandboxAndANonDryRunNeedsTheKey() throws {
        let fake = try FakeAppStore.start(scenario: Self.scenario)
        defer { fake.stop() }
        let path = Self.storePath()
        let answer = try Self.run("migrate-receipt", ["receipt": "receipt-single"], Self.environment(fake, store: path))
        #expect(answer.exitCode == 0, "\(answer.stderr)")
        #expect(try Self.subscriptions(answer.json)[Self.subscription]?["status"] as? String == "active")
        let first = try #require(try fake.requests().first)
        #expect(first["environment"] as? String == "Production")
        #expect(first["status"] as? Int == 404)

        var missing = Self.environment(fake, store: path)
        missing["APPSTORE_KEY_ID"] = nil
        let refused = try Self.run("migrate-receipt", ["receipt": "receipt-single"], missing)
        #expect(refused.exitCode == 78)
        #expect((refused.json["error"] as? [String: Any])?["message"] as? String == "APPSTORE_KEY_ID is not set")
        let dryRun = try Self.run("migrate-receipt", ["receipt": "receipt-single", "dryRun": true], missing)
        #expect(dryRun.exitCode == 0)
    }

    /// The route is public: over HTTP, linking to a user (or setting a token at Apple) needs the
    /// backend's bearer token.
    @Test func overHTTPAUserNeedsTheBackendsBearerToken() throws {
        let fake = try FakeAppStore.start(scenario: Self.scenario)
        defer { fake.stop() }
        let environment = Self.environment(fake, store: Self.storePath(), ["STOREKEEPER_ADMIN_TOKEN": "backend-secret"])
        let body = String(decoding: try JSONSerialization.data(withJSONObject: [
            "receiptData": try VerifyReceiptClientTests.receiptData("receipt-several"), "userId": "user-3",
        ]), as: UTF8.self)
        func event(_ headers: [String: String]) throws -> Data {
            try JSONSerialization.data(withJSONObject: [
                "version": "2.0", "rawPath": "/appstore/receipts", "rawQueryString": "",
                "headers": headers.merging(["content-type": "application/json"]) { $1 },
                "requestContext": ["http": ["method": "POST"]], "body": body, "isBase64Encoded": false,
            ] as [String: Any])
        }
        let anonymous = try FunctionBinary(name: "migrate-receipt").run(stdin: try event([:]), environment: environment)
        let refused = try #require(try JSONSerialization.jsonObject(with: anonymous.stdout) as? [String: Any], "\(anonymous.stdoutText)")
        #expect(refused["statusCode"] as? Int == 401)
        #expect(try fake.requests().isEmpty, "nothing was asked of Apple")

        let backend = try FunctionBinary(name: "migrate-receipt").run(
            stdin: try event(["authorization": "Bearer backend-secret"]), environment: environment)
        let accepted = try #require(try JSONSerialization.jsonObject(with: backend.stdout) as? [String: Any], "\(backend.stdoutText)")
        #expect(accepted["statusCode"] as? Int == 200, "\(backend.stderrText)")
    }

    @Test func anAppSpeaksForItsOwnUserWithItsSessionOverPublicHTTP() throws {
        let fake = try FakeAppStore.start(scenario: Self.scenario)
        defer { fake.stop() }
        let path = Self.storePath()
        let environment = Self.environment(fake, store: path, ["STOREKEEPER_ADMIN_TOKEN": "backend-secret"])
        // The user signed in natively; the app holds the session siwa-native answered.
        let session = try SessionRepository(store: SQLiteStore(path: path))
            .open(userId: "user-4", now: ISO8601DateFormatter().date(from: "2026-06-01T10:00:00Z") ?? Date())
        func event(_ fields: [String: Any]) throws -> Data {
            var body = fields
            body["receiptData"] = try VerifyReceiptClientTests.receiptData("receipt-several")
            return try JSONSerialization.data(withJSONObject: [
                "version": "2.0", "rawPath": "/appstore/receipts", "rawQueryString": "",
                "headers": ["content-type": "application/json"],
                "requestContext": ["http": ["method": "POST"]],
                "body": String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self), "isBase64Encoded": false,
            ] as [String: Any])
        }
        func answer(_ fields: [String: Any]) throws -> [String: Any] {
            let result = try FunctionBinary(name: "migrate-receipt").run(stdin: try event(fields), environment: environment)
            return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stdoutText)")
        }

        let unknown = try answer(["sessionToken": String(repeating: "0", count: 64)])
        #expect(unknown["statusCode"] as? Int == 401)
        #expect((unknown["body"] as? String ?? "").contains("invalid_session"))
        #expect(try fake.requests().isEmpty, "nothing was asked of Apple")
        let mixed = try answer(["sessionToken": session.id, "userId": "someone-else"])
        #expect(mixed["statusCode"] as? Int == 400, "a session never comes with another user id")

        let migrated = try answer(["sessionToken": session.id])
        #expect(migrated["statusCode"] as? Int == 200, "\(migrated)")
        let entitlements = try Self.run("get-entitlements", ["userId": "user-4"], environment)
        let list = try #require(entitlements.json["entitlements"] as? [[String: Any]])
        #expect(list.map { $0["originalTransactionId"] as? String } == [Self.subscription, Self.lifetime], "the purchases are the session's user's")
    }
}
