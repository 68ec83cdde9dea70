import Foundation
import SQLiteStore
import StorekeeperCore
import Testing
import TestSupport

/// `migrate-receipt` is public: an anonymous rerun answers from the store, and every call to
/// Apple goes through the migrations' shared bucket. Through the built binary's HTTP event
/// door (the status and `Retry-After` are checked) against the fake App Store, whose request
/// log tells what was asked of Apple.
@Suite("migrate-receipt: Apple's quota on a public route",
       .enabled(if: FakeVerifyReceiptServer.python != nil, "python3 not installed"))
struct MigrateReceiptQuotaTests {
    static let subscription = MigrateReceiptMigrationTests.subscription
    static let lifetime = MigrateReceiptMigrationTests.lifetime
    static let consumable = MigrateReceiptMigrationTests.consumable

    struct HTTPAnswer {
        var statusCode: Int
        var headers: [String: String]
        var body: [String: Any]
        var bodyText: String
        var stderr: String
    }

    static func overHTTP(_ fields: [String: Any], receipt: String = "receipt-several", bearer: String? = nil,
                         _ environment: [String: String]) throws -> HTTPAnswer {
        var body = fields
        body["receiptData"] = try VerifyReceiptClientTests.receiptData(receipt)
        var headers = ["content-type": "application/json"]
        if let bearer { headers["authorization"] = "Bearer " + bearer }
        let event = try JSONSerialization.data(withJSONObject: [
            "version": "2.0", "rawPath": "/appstore/receipts", "rawQueryString": "", "headers": headers,
            "requestContext": ["http": ["method": "POST"]],
            "body": String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self), "isBase64Encoded": false,
        ] as [String: Any])
        let result = try FunctionBinary(name: "migrate-receipt").run(stdin: event, environment: environment)
        let response = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stdoutText) \(result.stderrText)")
        let text = response["body"] as? String ?? ""
        return HTTPAnswer(
            statusCode: response["statusCode"] as? Int ?? 0, headers: response["headers"] as? [String: String] ?? [:],
            body: (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:], bodyText: text,
            stderr: result.stderrText)
    }

    static func migration(_ answer: HTTPAnswer) throws -> (fromStore: Bool?, appleRequests: Int?, subscriptions: [String: [String: Any]]) {
        let migration = try #require(answer.body["migration"] as? [String: Any], "\(answer.bodyText)")
        #expect(migration["performed"] as? Bool == true)
        let outcome = try #require(migration["outcome"] as? [String: Any])
        let list = try #require(outcome["subscriptions"] as? [[String: Any]])
        return (migration["fromStore"] as? Bool, outcome["appleRequests"] as? Int,
                Dictionary(uniqueKeysWithValues: list.map { ($0["originalTransactionId"] as? String ?? "", $0) }))
    }

    @Test func anAnonymousRerunAnswersFromTheStoreAndAsksAppleNothing() throws {
        let fake = try FakeAppStore.start(scenario: MigrateReceiptMigrationTests.scenario)
        defer { fake.stop() }
        let environment = MigrateReceiptMigrationTests.environment(
            fake, store: MigrateReceiptMigrationTests.storePath(), ["STOREKEEPER_ADMIN_TOKEN": "backend-secret"])

        let first = try Self.overHTTP([:], environment)
        #expect(first.statusCode == 200, "\(first.bodyText) \(first.stderr)")
        let live = try Self.migration(first)
        #expect(live.fromStore == false)
        #expect((live.appleRequests ?? 0) >= 2)
        #expect(try !fake.requests().isEmpty)

        try fake.clearLog()
        let second = try Self.overHTTP([:], environment)
        #expect(second.statusCode == 200, "\(second.bodyText) \(second.stderr)")
        #expect(try fake.requests().isEmpty, "nothing was asked of Apple")
        let stored = try Self.migration(second)
        #expect(stored.fromStore == true)
        #expect(stored.appleRequests == 0)
        // The receipt's own ids, each as the live answer had it, in the same shape.
        #expect(stored.subscriptions.keys.sorted() == [Self.subscription, Self.lifetime, Self.consumable])
        for (id, now) in stored.subscriptions {
            let then = try #require(live.subscriptions[id])
            #expect(now["status"] as? String == then["status"] as? String, "\(id)")
            #expect(now["productId"] as? String == then["productId"] as? String, "\(id)")
            #expect(now["inReceipt"] as? Bool == true)
            #expect(now["eventsApplied"] as? Int == 0)
            #expect(Set(now.keys).subtracting(["statusBefore"]) == Set(then.keys).subtracting(["statusBefore"]), "\(id): \(now) vs \(then)")
        }
        #expect(stored.subscriptions[Self.subscription]?["status"] as? String == "active")

        // Your backend, speaking for a user, is not anonymous: Apple is asked and the user linked.
        try fake.clearLog()
        let backend = try Self.overHTTP(["userId": "user-9"], bearer: "backend-secret", environment)
        #expect(backend.statusCode == 200, "\(backend.bodyText)")
        #expect(try Self.migration(backend).fromStore == false)
        #expect(try !fake.requests().isEmpty)
        #expect(try Self.migration(backend).subscriptions[Self.subscription]?["linkedToUser"] as? Bool == true)
        // The anonymous holder of the receipt learns the ids' status, never whose they are.
        try fake.clearLog()
        let after = try Self.overHTTP([:], environment)
        #expect(try Self.migration(after).fromStore == true)
        #expect(try fake.requests().isEmpty)
        #expect(!after.bodyText.contains("user-9") && !after.bodyText.contains("linkedToUser"), "\(after.bodyText)")
    }

    @Test func anExhaustedBucketAnswers429WithRetryAfterAndAsksAppleNothing() throws {
        let fake = try FakeAppStore.start(scenario: MigrateReceiptMigrationTests.scenario)
        defer { fake.stop() }
        let path = MigrateReceiptMigrationTests.storePath()
        // One call in 100 s: the token a fresh bucket holds is taken here, by "another process".
        let environment = MigrateReceiptMigrationTests.environment(fake, store: path, ["MIGRATE_REQUESTS_PER_SECOND": "0.01"])
        let limiter = SharedRateLimiter(store: try SQLiteStore(path: path), key: StoreKeys.receiptMigrationRateLimit, requestsPerSecond: 0.01)
        #expect(try limiter.tryAcquire(now: Date()) == .proceed)

        let refused = try Self.overHTTP([:], environment)
        #expect(refused.statusCode == 429, "\(refused.bodyText) \(refused.stderr)")
        let retryAfter = try #require(refused.headers["retry-after"].flatMap { Int($0) }, "\(refused.headers)")
        #expect((1...100).contains(retryAfter))
        #expect((refused.body["error"] as? [String: Any])?["code"] as? String == "rate_limited")
        #expect(try fake.requests().isEmpty, "nothing was asked of Apple")
        #expect(try limiter.tryAcquire(now: Date()) != .proceed, "the refusal took no token")

        // In a pipe: exit 75, try later.
        let direct = try MigrateReceiptMigrationTests.run("migrate-receipt", ["receipt": "receipt-several"], environment)
        #expect(direct.exitCode == 75, "\(direct.stderr)")
        #expect((direct.json["error"] as? [String: Any])?["code"] as? String == "rate_limited")
        #expect(try fake.requests().isEmpty)
    }

    @Test func applesRetryAfterHoldsTheBucketBackForEveryone() throws {
        let fake = try FakeAppStore.start(scenario: MigrateReceiptMigrationTests.scenario)
        defer { fake.stop() }
        let environment = MigrateReceiptMigrationTests.environment(fake, store: MigrateReceiptMigrationTests.storePath())
        // Longer than the client waits by itself (30 s): it gives up at once.
        try fake.queueFaults([["kind": "status", "status": 429, "retryAfter": 120]])
        let told = try Self.overHTTP([:], environment)
        #expect(told.statusCode == 503, "\(told.bodyText)")
        #expect(try fake.requests().count == 1)

        try fake.clearLog()
        let next = try Self.overHTTP([:], receipt: "receipt-single", environment)
        #expect(next.statusCode == 429, "\(next.bodyText)")
        let retryAfter = try #require(next.headers["retry-after"].flatMap { Int($0) }, "\(next.headers)")
        #expect((60...120).contains(retryAfter), "about what Apple said: \(retryAfter)")
        #expect(try fake.requests().isEmpty, "nothing was asked of Apple")
    }
}
