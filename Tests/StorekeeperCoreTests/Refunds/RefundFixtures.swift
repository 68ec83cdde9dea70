import Foundation
import StorekeeperCore
import StorekeeperTesting

/// Stored notifications about refunds, as receive-notification keeps them, and the world the
/// answerer works in: a memory store, a clock the test moves, a scripted Apple.
enum RefundFixtures {
    static let bundleId = "com.example.storekeeper"
    /// The request's signedDate; its deadline is 12 hours later.
    static let asked: Int64 = 1_780_272_000_000
    static let deadline = asked + 12 * 3_600_000
    static let day: Int64 = 86_400_000

    static func notification(_ type: String, uuid: String, signedDate: Int64 = asked, transactionId: String = "3000000001",
                             productType: String = "Consumable", productId: String = "com.example.coins100",
                             ownership: String = "PURCHASED", reason: String? = "UNINTENDED_PURCHASE",
                             environment: String = "Sandbox", purchaseDate: Int64 = asked - 10 * day,
                             appAccountToken: String? = "6f1b8c2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b") throws -> StoredNotification {
        var data: [String: Any] = ["bundleId": bundleId, "environment": environment]
        if let reason, type == "CONSUMPTION_REQUEST" { data["consumptionRequestReason"] = reason }
        var transaction: [String: Any] = [
            "transactionId": transactionId, "originalTransactionId": transactionId, "bundleId": bundleId,
            "productId": productId, "type": productType, "purchaseDate": purchaseDate, "signedDate": signedDate,
            "environment": environment, "inAppOwnershipType": ownership,
        ]
        if let appAccountToken { transaction["appAccountToken"] = appAccountToken }
        let stored: [String: Any] = [
            "payload": ["notificationType": type, "notificationUUID": uuid, "signedDate": signedDate, "version": "2.0", "data": data],
            "receivedAt": signedDate + 1_000, "via": "webhook", "transactionInfo": transaction,
        ]
        return try JSONDecoder().decode(StoredNotification.self, from: JSONSerialization.data(withJSONObject: stored))
    }

    static func request(_ notification: StoredNotification) throws -> RefundRequest {
        guard let request = RefundRequest(consumptionRequest: notification) else { throw Failure("no request in \(notification)") }
        return request
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// A clock the test sets: `now()` is the decision time (the deadline is checked against it).
final class SetClock: TimeSource, @unchecked Sendable {
    var milliseconds: Int64
    init(_ milliseconds: Int64) { self.milliseconds = milliseconds }
    func now() -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    func realNow() -> Date { now() }
    func monotonic() -> Duration { .milliseconds(milliseconds) }
    func sleep(for duration: Duration) {}
}

/// A store, a clock and an Apple that answers from a script, with the repository and the
/// answerer over them.
final class RefundWorld {
    let store = MemoryStore()
    let clock = SetClock(RefundFixtures.asked + 60_000)
    var http = ScriptedHTTPClient([], then: .answer(202, [], ""))
    /// nil: no API key configured.
    var credentials: AppStoreAPICredentials? = AppStoreAPICredentials(
        keyId: "TESTKEY123", issuerId: "57246542-96fe-1a63-e053-0824d011072a", bundleId: RefundFixtures.bundleId,
        privateKey: AppStoreServerAPIClientTests.key)
    var catalog = Catalog(apps: [], entitlements: [:], products: [:], productsImplied: true)

    var repository: RefundRequestRepository { RefundRequestRepository(store: store) }
    var facts: ConsumptionFactsRepository { ConsumptionFactsRepository(store: store) }

    var answerer: RefundAnswerer {
        RefundAnswerer(store: store, catalog: catalog, time: clock) { [self] bundleId, policy in
            guard let key = credentials else { return nil }
            let credentials = AppStoreAPICredentials(keyId: key.keyId, issuerId: key.issuerId, bundleId: bundleId, privateKey: key.privateKey)
            return AppStoreServerAPIClient(credentials: credentials, http: http, baseURLs: .overridden("http://apple.test"),
                                           time: clock, retryPolicy: policy)
        }
    }

    func notice(_ notification: StoredNotification) throws -> RefundRequestRepository.Notice? {
        try repository.notice(notification, now: clock.milliseconds)
    }

    func consent(_ consented: Bool = true, at date: Int64 = RefundFixtures.asked) throws {
        try facts.setConsent(ConsumptionConsent(consented: consented, recordedAt: date, recordedBy: "test", reason: nil),
                             appAccountToken: "6f1b8c2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b")
    }

    func stored(_ transactionId: String = "3000000001") throws -> RefundRequest? {
        try repository.request(bundleId: RefundFixtures.bundleId, environment: "Sandbox", transactionId: transactionId)
    }

    var due: [String] { (try? store.setMembers(StoreKeys.refundAnswersDue)) ?? [] }

    /// The JSON bodies Apple was sent, in order.
    var sentBodies: [[String: Any]] {
        http.requests.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.body))) as? [String: Any] }
    }
}
