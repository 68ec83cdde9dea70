import Foundation
import StorekeeperCore
import StorekeeperTesting
import Testing

/// The worker in process: a CONSUMPTION_REQUEST received by the inbox is recorded as the
/// notification is applied and answered once the job is acknowledged; a failed answer never
/// fails the notification.
@Suite("Refund requests in the worker: recorded with the notification, answered after its acknowledgement")
struct RefundWorkerTests {
    typealias F = RefundFixtures

    static func consumptionRequest(uuid: String) throws -> String {
        let transaction: [String: Any] = [
            "transactionId": "3000000001", "originalTransactionId": "3000000001", "bundleId": TestPKI.bundleId,
            "productId": "com.example.coins100", "type": "Consumable", "purchaseDate": F.asked - F.day, "signedDate": F.asked,
            "environment": "Sandbox", "inAppOwnershipType": "PURCHASED", "appAccountToken": "6f1b8c2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b",
        ]
        return try TestPKI.sign([
            "notificationType": "CONSUMPTION_REQUEST", "notificationUUID": uuid, "signedDate": F.asked, "version": "2.0",
            "data": ["bundleId": TestPKI.bundleId, "environment": "Sandbox", "appAppleId": TestPKI.appAppleId,
                     "consumptionRequestReason": "FULFILLMENT_ISSUE", "signedTransactionInfo": try TestPKI.sign(transaction)],
        ])
    }

    /// An Apple that checks, as each PUT arrives, that the worker already acknowledged the job.
    final class AcknowledgedFirst: HTTPClient, @unchecked Sendable {
        let store: any KeyValueStore
        var status: Int
        private(set) var queuedAtSend: [Int] = []
        init(store: any KeyValueStore, status: Int) {
            self.store = store
            self.status = status
        }
        func send(_ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
            queuedAtSend.append((try? store.pendingCount(in: StoreKeys.notificationQueue)) ?? -1)
            return HTTPResponse(status: status, headers: [], body: [])
        }
    }

    private func worker(_ world: RefundWorld, http: AcknowledgedFirst) -> NotificationProcessor {
        let credentials = world.credentials
        let answerer = RefundAnswerer(store: world.store, catalog: world.catalog, time: world.clock) { bundleId, policy in
            guard let credentials else { return nil }
            return AppStoreServerAPIClient(credentials: credentials, http: http, baseURLs: .overridden("http://apple.test"),
                                           time: world.clock, retryPolicy: policy)
        }
        return NotificationProcessor(store: world.store, time: world.clock, refunds: answerer)
    }

    @Test func recordedWithTheNotificationAndAnsweredAfterItsAcknowledgement() throws {
        let world = RefundWorld()
        try world.consent()
        let inbox = NotificationInbox(verifier: try TestPKI.verifier(), store: world.store)
        _ = try inbox.receive(signedPayload: try Self.consumptionRequest(uuid: "77777777-0000-4000-8000-000000000001"),
                              now: world.clock.now())
        let http = AcknowledgedFirst(store: world.store, status: 503)
        var report = try worker(world, http: http).run(budget: .seconds(30))
        #expect(report.ignored == 1 && report.failed == 0 && report.refundRequests.recorded == 1 && report.refundRequests.waiting == 1,
                "Apple down: the notification is done all the same: \(report)")
        #expect(http.queuedAtSend == [0], "the PUT went after the acknowledgement")
        #expect(try world.stored()?.consumptionRequestReason == "FULFILLMENT_ISSUE")

        http.status = 202
        world.clock.milliseconds += 60_000
        report = try worker(world, http: http).run(budget: .seconds(30))
        #expect(report.refundRequests.answered == 1 && report.refundRequests.recorded == 0)
        #expect(try world.stored()?.state == .answered)
    }
}
