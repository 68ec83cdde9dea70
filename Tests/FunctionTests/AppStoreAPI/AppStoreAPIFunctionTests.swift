import Foundation
import Testing
import TestSupport

/// `app-store-api` and `test-notification` as black boxes: the built binaries against the
/// fake App Store, checking answers, decoded fields and exit statuses.
@Suite struct AppStoreAPIFunctionTests {
    static func environment(_ fake: FakeAppStore, _ extra: [String: String] = [:]) -> [String: String] {
        var environment = [
            "APPSTORE_KEY_ID": FakeAppStore.keyId,
            "APPSTORE_ISSUER_ID": FakeAppStore.issuerId,
            "APPSTORE_PRIVATE_KEY": FakeAppStore.apiKeyPath,
            "APPSTORE_BUNDLE_ID": FakeAppStore.bundleId,
            "APPSTORE_API_BASE_URL": fake.baseURL,
            "APPSTORE_ROOT_CERTS": FakeAppStore.repositoryRoot.appendingPathComponent("Tests/Fixtures/pki/root.pem").path,
            "APPSTORE_APP_APPLE_ID": FakeAppStore.appAppleId,
            "APPSTORE_ONLINE_CHECKS": "off",
            "STORE_URL": "sqlite:" + FileManager.default.temporaryDirectory.appendingPathComponent("app-store-api-\(UUID().uuidString).db").path,
        ]
        environment.merge(extra) { $1 }
        return environment
    }

    static func run(_ function: String, _ request: [String: Any], _ environment: [String: String]) throws -> (json: [String: Any], exitCode: Int32, stderr: String) {
        let result = try FunctionBinary(name: function).run(stdin: try JSONSerialization.data(withJSONObject: request), environment: environment)
        let json = (try? JSONSerialization.jsonObject(with: result.stdout)) as? [String: Any]
        return (json ?? [:], result.exitCode, result.stderrText)
    }

    @Test func historyFollowsEveryPageAndDecodesEachTransaction() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let answer = try Self.run("app-store-api", [
            "operation": "getTransactionHistory", "transactionId": "1000000003", "allPages": true, "decode": true,
            "query": ["productType": ["AUTO_RENEWABLE"], "sort": "ASCENDING"],
        ], Self.environment(fake))
        #expect(answer.exitCode == 0, "\(answer.stderr)")
        #expect(answer.json["operation"] as? String == "getTransactionHistory")
        #expect(answer.json["environment"] as? String == "Production")
        #expect(answer.json["pages"] as? Int == 3)
        let response = try #require(answer.json["response"] as? [String: Any])
        #expect(response["hasMore"] as? Bool == false)
        #expect((response["signedTransactions"] as? [String])?.count == 5)
        let transactions = try #require(response["transactions"] as? [[String: Any]])
        #expect(transactions.compactMap { $0["transactionId"] as? String } == (1...5).map { "100000000\($0)" })
        #expect(transactions.allSatisfy { $0["verificationError"] == nil && $0["bundleId"] as? String == FakeAppStore.bundleId })
        #expect(try fake.requests().count == 3)
    }

    @Test func aSignedFieldThatFailsVerificationSaysWhyAndTheRestStillAnswers() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let otherRoot = FakeAppStore.repositoryRoot.appendingPathComponent("Tests/Fixtures/pki/other-root.pem").path
        let answer = try Self.run("app-store-api", ["operation": "getTransactionInfo", "transactionId": "1000000001", "decode": true],
                                  Self.environment(fake, ["APPSTORE_ROOT_CERTS": otherRoot]))
        #expect(answer.exitCode == 0)
        let response = try #require(answer.json["response"] as? [String: Any])
        #expect(response["signedTransactionInfo"] is String)
        let decoded = try #require(response["transactionInfo"] as? [String: Any])
        #expect((decoded["verificationError"] as? [String: Any])?["code"] as? String == "INVALID_CERTIFICATE")
        #expect(decoded["transactionId"] == nil)
    }

    @Test func statusesAndNotificationHistoryDecodeNestedSignedFields() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let statuses = try Self.run("app-store-api", ["operation": "getAllSubscriptionStatuses", "transactionId": "1000000001",
                                                      "query": ["status": [1, 3]], "decode": true], Self.environment(fake))
        #expect(statuses.exitCode == 0)
        let group = try #require(((statuses.json["response"] as? [String: Any])?["data"] as? [[String: Any]])?.first)
        let last = try #require((group["lastTransactions"] as? [[String: Any]])?.first)
        #expect((last["transactionInfo"] as? [String: Any])?["transactionId"] as? String == "1000000005")
        #expect((last["renewalInfo"] as? [String: Any])?["autoRenewStatus"] as? Int == 1)
        #expect(try fake.requests().last?["query"] as? [String: [String]] == ["status": ["1", "3"]])

        let history = try Self.run("app-store-api", [
            "operation": "getNotificationHistory", "allPages": true, "decode": true,
            "body": ["startDate": 1_767_225_600_000, "endDate": 1_767_225_600_000 + 30 * 86_400_000, "onlyFailures": true],
        ], Self.environment(fake))
        #expect(history.exitCode == 0)
        let items = try #require((history.json["response"] as? [String: Any])?["notificationHistory"] as? [[String: Any]])
        #expect(items.count == 2)
        let payload = try #require(items.last?["payload"] as? [String: Any])
        #expect(payload["notificationType"] as? String == "REFUND")
        let data = try #require(payload["data"] as? [String: Any])
        #expect((data["transactionInfo"] as? [String: Any])?["transactionId"] as? String == "1000000010")
    }

    @Test func theSandboxAnswersWhenProductionDoesNotKnowAndSandboxIsAccepted() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let request: [String: Any] = ["operation": "getTransactionInfo", "transactionId": "2000000001", "decode": true]
        let fallback = try Self.run("app-store-api", request, Self.environment(fake))
        #expect(fallback.exitCode == 0)
        #expect(fallback.json["environment"] as? String == "Sandbox")
        #expect(fallback.json["attempts"] as? Int == 2)
        #expect(((fallback.json["response"] as? [String: Any])?["transactionInfo"] as? [String: Any])?["environment"] as? String == "Sandbox")

        let productionOnly = try Self.run("app-store-api", request, Self.environment(fake, ["APPSTORE_ENVIRONMENT": "Production"]))
        #expect(productionOnly.exitCode == 65)
        let error = try #require(productionOnly.json["error"] as? [String: Any])
        #expect(error["code"] as? String == "TransactionIdNotFoundError")
        #expect(error["errorCode"] as? Int == 4040010)
        #expect(error["retryable"] as? Bool == false)
        #expect(try fake.requests().map { $0["environment"] as? String } == ["Production", "Sandbox", "Production"])
    }

    @Test func appleErrorsKeepApplesNamesAndExitStatuses() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        // Two 503s, then an answer: retried, exit 0.
        try fake.queueFaults([["kind": "status", "status": 503], ["kind": "status", "status": 500]])
        let retried = try Self.run("app-store-api", ["operation": "lookUpOrderId", "orderId": "MK5TTTVWJH"], Self.environment(fake))
        #expect(retried.exitCode == 0)
        #expect(retried.json["attempts"] as? Int == 3)

        // Rate limited beyond the call's deadline: retryable, exit 75.
        try fake.clearLog()
        try fake.queueFaults(Array(repeating: ["kind": "status", "status": 429, "retryAfter": 1], count: 3))
        let limited = try Self.run("app-store-api", ["operation": "getRefundHistory", "transactionId": "1000000001"],
                                   Self.environment(fake, ["APPSTORE_API_TIMEOUT_SECONDS": "2"]))
        #expect(limited.exitCode == 75)
        let error = try #require(limited.json["error"] as? [String: Any])
        #expect(error["code"] as? String == "RateLimitExceededError")
        #expect(error["retryable"] as? Bool == true)
        #expect(error["attempts"] as? Int == 2)
        #expect(try fake.requests().count == 2)

        // A refusal: 400, exit 65, never retried.
        try fake.clearFaults()
        try fake.clearLog()
        let refused = try Self.run("app-store-api", ["operation": "extendSubscriptionRenewalDate", "originalTransactionId": "1000000001",
                                                     "body": ["extendByDays": 7, "extendReasonCode": 9, "requestIdentifier": "r"]],
                                   Self.environment(fake))
        #expect(refused.exitCode == 65)
        #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "InvalidExtendReasonCodeError")
        #expect(try fake.requests().count == 1)
    }

    @Test func aRefusedTokenIsAConfigurationProblem() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        // A key id Apple does not know; a clock pinned two hours back (STOREKEEPER_NOW, which
        // verification uses) does not date the token: it is signed at the wall clock's time.
        let stale = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-7200))
        let answer = try Self.run("app-store-api", ["operation": "getTransactionInfo", "transactionId": "1000000001"],
                                  Self.environment(fake, ["STOREKEEPER_NOW": stale, "APPSTORE_KEY_ID": "NOSUCHKEY1"]))
        #expect(answer.exitCode == 78)
        #expect((answer.json["error"] as? [String: Any])?["code"] as? String == "api_token_refused")
        #expect(try fake.requests().map { $0["auth"] as? String } == ["unknown kid"])
        #expect(!answer.stderr.contains("Bearer"))
    }

    @Test func testNotificationReportsADelivery() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let answer = try Self.run("test-notification", ["pollIntervalMilliseconds": 20, "timeoutSeconds": 10, "decode": true],
                                  Self.environment(fake))
        #expect(answer.exitCode == 0, "\(answer.stderr)")
        #expect(answer.json["delivered"] as? Bool == true)
        #expect(answer.json["outcome"] as? String == "delivered")
        #expect(answer.json["polls"] as? Int == 2)
        let attempts = try #require(answer.json["sendAttempts"] as? [[String: Any]])
        #expect(attempts.map { $0["sendAttemptResult"] as? String } == ["SUCCESS"])
        #expect(attempts.first?["hint"] == nil)
        #expect((answer.json["payload"] as? [String: Any])?["notificationType"] as? String == "TEST")
        let paths = try fake.requests().map { $0["path"] as? String ?? "" }
        #expect(paths.first == "/inApps/v1/notifications/test")
        #expect(paths.dropFirst().allSatisfy { $0.hasPrefix("/inApps/v1/notifications/test/") })
    }

    @Test func testNotificationExplainsAFailedDelivery() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let answer = try Self.run("test-notification", ["environment": "Sandbox", "pollIntervalMilliseconds": 20],
                                  Self.environment(fake))
        #expect(answer.exitCode == 69)
        #expect(answer.json["delivered"] as? Bool == false)
        #expect(answer.json["outcome"] as? String == "failed")
        let attempts = try #require(answer.json["sendAttempts"] as? [[String: Any]])
        #expect(attempts.map { $0["sendAttemptResult"] as? String } == ["SSL_ISSUE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE"])
        #expect((attempts.first?["hint"] as? String)?.contains("certificate") == true)
        #expect((attempts.last?["hint"] as? String)?.contains("not with 200") == true)
        #expect(try fake.requests().allSatisfy { $0["environment"] as? String == "Sandbox" })
    }

    @Test func testNotificationGivesUpAtItsTimeoutAndSaysItIsPending() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        var scenario = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: FakeAppStore.defaultScenario))) as? [String: Any])
        var environments = try #require(scenario["environments"] as? [String: Any])
        var production = try #require(environments["Production"] as? [String: Any])
        production["testNotification"] = ["sendAttemptResults": ["SUCCESS"], "pendingPolls": 1000]
        environments["Production"] = production
        scenario["environments"] = environments
        try fake.loadScenario(scenario)
        let answer = try Self.run("test-notification", ["pollIntervalMilliseconds": 100, "timeoutSeconds": 1], Self.environment(fake))
        #expect(answer.exitCode == 75)
        #expect(answer.json["outcome"] as? String == "pending")
        let polls = try #require(answer.json["polls"] as? Int)
        #expect(polls >= 2 && polls <= 11)

        // No notification URL configured: Apple's ServerNotificationUrlNotFoundError.
        production["testNotification"] = ["noNotificationUrl": true]
        environments["Production"] = production
        scenario["environments"] = environments
        try fake.loadScenario(scenario)
        let noURL = try Self.run("test-notification", [:], Self.environment(fake))
        #expect(noURL.exitCode == 65)
        #expect((noURL.json["error"] as? [String: Any])?["code"] as? String == "ServerNotificationUrlNotFoundError")
    }
}
