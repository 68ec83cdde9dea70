import Foundation
import StorekeeperCore
import Testing

/// The move of a verified legacy receipt to the App Store Server API, in process: the real
/// client and verifier over a scripted HTTP port that answers as Apple would, signed with the
/// test PKI, and an in-memory store. The receipt is `receipt-single` (Production, one
/// subscription, 1000000000000001); "now" is 2026-06-01, inside the subscription's period.
@Suite struct ReceiptMigrationTests {
    static let id = "1000000000000001"
    static let token = "5b1a0b44-2f0e-4f53-9d6e-2b8f8f0f3c11"

    static func receipt() throws -> AppReceipt {
        try ReceiptFixtures.verifier().verify(der: try ReceiptFixtures.bytes("receipt-single.p7"))
    }

    static func signedTransaction(token: String? = nil) throws -> String {
        var transaction = TestPKI.transaction(environment: "Production")
        transaction["transactionId"] = id
        transaction["originalTransactionId"] = id
        if let token { transaction["appAccountToken"] = token }
        return try TestPKI.sign(transaction)
    }

    static func history(_ signed: [String]) -> ScriptedHTTPClient.Step {
        let list = signed.map { "\"\($0)\"" }.joined(separator: ",")
        return .answer(200, [], #"{"bundleId": "com.example.storekeeper", "environment": "Production", "hasMore": false, "revision": "r1", "signedTransactions": [\#(list)]}"#)
    }

    static func statuses(token: String? = nil) throws -> ScriptedHTTPClient.Step {
        var renewal = TestPKI.renewalInfo(environment: "Production")
        renewal["originalTransactionId"] = id
        let item = #"{"originalTransactionId": "\#(id)", "status": 1, "signedTransactionInfo": "\#(try signedTransaction(token: token))", "signedRenewalInfo": "\#(try TestPKI.sign(renewal))"}"#
        return .answer(200, [], #"{"bundleId": "com.example.storekeeper", "environment": "Production", "data": [{"subscriptionGroupIdentifier": "g1", "lastTransactions": [\#(item)]}]}"#)
    }

    static func migrator(_ http: ScriptedHTTPClient, store: MemoryStore) throws -> AppStoreReceiptMigrator {
        AppStoreReceiptMigrator(client: AppStoreServerAPIClientTests.client(http), verifier: try TestPKI.verifier(),
                                store: store, clock: SystemTime(pinnedAt: TestPKI.fixedTime), sandboxFallback: false)
    }

    @Test func theTokenIsSetWhereMissingTheAnswersAppliedAndLinkedAndARerunChangesNothing() throws {
        let store = MemoryStore()
        let account = ReceiptMigrationAccount(userId: "user-1", appAccountToken: Self.token)
        let first = ScriptedHTTPClient([
            Self.history([try Self.signedTransaction()]), .answer(200, [], ""),
            Self.history([try Self.signedTransaction(token: Self.token)]), try Self.statuses(token: Self.token),
        ])
        let outcome = try Self.migrator(first, store: store).migrate(try Self.receipt(), environment: "Production", account: account)
        // History, Set App Account Token, the history again (now with the token), the statuses.
        #expect(first.requests.map(\.method) == ["GET", "PUT", "GET", "GET"])
        #expect(first.requests[1].url.hasSuffix("/inApps/v1/transactions/\(Self.id)/appAccountToken"))
        #expect(outcome.appleRequests == 4)
        let subscription = try #require(outcome.subscription(Self.id))
        #expect(subscription.status == "active")
        #expect(subscription.statusBefore == nil)
        #expect(subscription.appAccountTokenSet)
        #expect(subscription.linkedToUser == true)
        #expect(subscription.eventsApplied >= 1)
        #expect(subscription.failure == nil)
        #expect(try EntitlementRepository(store: store).originalTransactionIds(ofUser: "user-1") == [Self.id])

        let again = ScriptedHTTPClient([Self.history([try Self.signedTransaction(token: Self.token)]), try Self.statuses(token: Self.token)])
        let rerun = try Self.migrator(again, store: store).migrate(try Self.receipt(), environment: "Production", account: account)
        #expect(again.requests.map(\.method) == ["GET", "GET"], "the token is there now: nothing is written at Apple")
        #expect(rerun.appleRequests == 2)
        #expect(rerun.subscription(Self.id)?.eventsApplied == 0)
        #expect(rerun.subscription(Self.id)?.appAccountTokenSet == false)
        #expect(rerun.subscription(Self.id)?.statusBefore == "active")
    }

    @Test func aSignedAnswerThatDoesNotVerifyIsNotedAndNotApplied() throws {
        let store = MemoryStore()
        let good = try Self.signedTransaction()
        // The payload changed after signing: the signature no longer matches.
        let parts = good.split(separator: ".").map(String.init)
        let payload = String(decoding: try #require(Base64URL.decode(parts[1])), as: UTF8.self)
        let forged = [parts[0], Base64URL.encode(Array(payload.replacingOccurrences(of: "monthly", with: "yearly").utf8)), parts[2]]
            .joined(separator: ".")
        let migrator = try Self.migrator(ScriptedHTTPClient([Self.history([forged])]), store: store)
        var rejected: [String] = []
        migrator.onRejected = { id, code in rejected.append("\(id) \(code)") }

        let outcome = try migrator.migrate(try Self.receipt(), environment: "Production", account: ReceiptMigrationAccount())
        #expect(rejected == ["\(Self.id) VERIFICATION_FAILURE"])
        #expect(outcome.subscription(Self.id)?.failure == "VERIFICATION_FAILURE")
        #expect(outcome.subscription(Self.id)?.status == nil, "nothing was applied")
        #expect(outcome.appleRequests == 1, "no statuses: the history named no subscription")
    }

    @Test func anIdAppleDoesNotKnowIsNotFoundAndAsksNothingMore() throws {
        let http = ScriptedHTTPClient([.answer(404, [], AppStoreServerAPIClientTests.notFound)])
        let outcome = try Self.migrator(http, store: MemoryStore())
            .migrate(try Self.receipt(), environment: "Production", account: ReceiptMigrationAccount())
        #expect(http.requests.count == 1)
        #expect(outcome.subscriptions == [.init(originalTransactionId: Self.id, status: nil, failure: "not_found")])
        #expect(outcome.appleRequests == 1)
    }

    @Test func anAnonymousRerunWithinADayIsAnsweredFromTheStore() throws {
        let store = MemoryStore()
        let clock = SystemTime(pinnedAt: TestPKI.fixedTime)
        let asked = ScriptedHTTPClient([Self.history([try Self.signedTransaction()]), try Self.statuses()])
        let first = try ReceiptMigration(migrator: try Self.migrator(asked, store: store), store: store, clock: clock)
            .run(try Self.receipt(), receiptData: "", environment: "Production", account: ReceiptMigrationAccount(), anonymous: true)
        #expect(!first.fromStore, "nothing was remembered yet")
        #expect(first.outcome.subscription(Self.id)?.status == "active")

        let silent = ScriptedHTTPClient([])
        let migration = ReceiptMigration(migrator: try Self.migrator(silent, store: store), store: store, clock: clock)
        let rerun = try migration.run(try Self.receipt(), receiptData: "", environment: "Production",
                                      account: ReceiptMigrationAccount(), anonymous: true)
        #expect(rerun.fromStore)
        #expect(silent.requests.isEmpty)
        #expect(rerun.outcome.appleRequests == 0)
        #expect(rerun.outcome.subscription(Self.id)?.status == "active")
        #expect(rerun.outcome.subscription(Self.id)?.linkedToUser == nil, "nothing about users from the store")
        #expect(rerun.audits.isEmpty)
    }

    @Test func theLegacyTrackIsComparedAndRecordedBesideTheNewOne() throws {
        let store = MemoryStore()
        // verifyReceipt knows only the first period, which ended before "now".
        let expired = TestPKI.fixedTimeMilliseconds - 3_600_000
        let legacyHTTP = ScriptedHTTPClient([.answer(200, [], #"{"status": 0, "environment": "Production", "latest_receipt_info": [{"original_transaction_id": "\#(Self.id)", "transaction_id": "\#(Self.id)", "product_id": "com.example.pro.monthly", "purchase_date_ms": "\#(expired - 2_592_000_000)", "expires_date_ms": "\#(expired)"}]}"#)])
        let legacy = VerifyReceiptClient(http: { legacyHTTP }, sharedSecret: "secret")
        let apple = ScriptedHTTPClient([Self.history([try Self.signedTransaction()]), try Self.statuses()])
        let result = try ReceiptMigration(migrator: try Self.migrator(apple, store: store), store: store,
                                          clock: SystemTime(pinnedAt: TestPKI.fixedTime), legacy: legacy)
            .run(try Self.receipt(), receiptData: "MIIT", environment: "Production", account: ReceiptMigrationAccount(), anonymous: false)

        #expect(result.legacy?.subscriptions.map(\.state) == [.expired])
        #expect(result.audits.map(\.agree) == [false])
        let stored = try #require(try ReceiptMigrationAudit.load(.testApp(Self.id), from: store))
        #expect(stored.legacyStatus == "expired")
        #expect(stored.newStatus == "active")
        #expect(stored.environment == "Production")
    }

    @Test func theAccountIsTheGivenTokenUnlessAnotherUserHasItElseTheUsersOwn() throws {
        let store = MemoryStore()
        let other = "0c0b0a09-0807-4605-8403-020100000000"
        #expect(try EntitlementRepository(store: store).assign(appAccountToken: other, toUser: "user-2"))
        #expect(try ReceiptMigration.account(userId: "user-1", appAccountToken: other, store: store) == nil)

        let given = try ReceiptMigration.account(userId: "user-1", appAccountToken: Self.token, store: store)
        #expect(given == ReceiptMigrationAccount(userId: "user-1", appAccountToken: Self.token))
        #expect(try EntitlementRepository(store: store).user(ofAppAccountToken: Self.token) == "user-1")

        try AccountRepository(store: store, dataKey: nil).save(AppleAccount(userId: "user-3", sub: "sub-3", appAccountToken: other, createdAt: 0))
        #expect(try ReceiptMigration.account(userId: "user-3", appAccountToken: nil, store: store)
            == ReceiptMigrationAccount(userId: "user-3", appAccountToken: other))
        #expect(try ReceiptMigration.account(userId: nil, appAccountToken: nil, store: store) == ReceiptMigrationAccount())
    }
}
