import Foundation
import StorekeeperCore
import Testing

/// Recovery in process: Apple's Notification History from a fake source (pages of
/// notifications the test PKI signed), fed through the same inbox the webhook uses, on a
/// MemoryStore. The `recover-notifications` binary is tested in FunctionTests.
@Suite("Notification recovery in process: a gap in the webhook's deliveries is filled, once")
struct NotificationRecoveryTests {
    /// Get Notification History as fixed pages; the pagination token names the next page.
    struct History: NotificationHistorySource {
        var pages: [[String]]
        func page(_ query: NotificationHistoryRequest, paginationToken: String?) throws(NotificationHistoryFailure) -> NotificationHistoryPage {
            let index = paginationToken.flatMap { Int($0.dropFirst("page-".count)) } ?? 0
            guard pages.indices.contains(index) else {
                throw NotificationHistoryFailure(code: "InvalidPaginationTokenError", reason: "no page \(index)", disposition: .badInput, origin: ErrorOrigin())
            }
            let hasMore = index + 1 < pages.count
            return NotificationHistoryPage(
                items: pages[index].map { .init(signedPayload: $0, sendAttemptResults: ["SUCCESS"]) },
                paginationToken: hasMore ? "page-\(index + 1)" : nil, hasMore: hasMore)
        }
    }

    @Test func notificationsTheWebhookMissedAreQueuedAndTheOnesItGotAreDuplicates() throws {
        let store = MemoryStore()
        let inbox = NotificationInbox(verifier: try TestPKI.verifier(), store: store)
        var story = LifecycleSimulator()
        story.subscribe()
        story.renew()
        story.setAutoRenew(false)
        let payloads = try story.notifications.map { try $0.signedPayload() }
        let now = Date(timeIntervalSince1970: Double(story.now) / 1000)
        // The webhook got the first notification; an outage lost the other two.
        _ = try inbox.receive(signedPayload: payloads[0], now: now)
        let recovery = NotificationRecovery(store: store, inbox: inbox, source: History(pages: [Array(payloads[0...1]), [payloads[2]]]),
                                            clock: SystemTime(pinnedAt: now))
        let query = NotificationHistoryRequest(startDate: story.notifications[0].signedDate - 1000, endDate: story.now)

        let report = try recovery.run(query, outOfTime: { false })
        #expect(report.pages == 2 && report.fetched == 3, "\(report)")
        #expect(report.queued == 2 && report.alreadyKnown == 1 && report.invalid.isEmpty, "\(report)")
        #expect(try store.pendingCount(in: StoreKeys.notificationQueue) == 3)

        let work = try NotificationProcessor(store: store, time: SystemTime()).run(budget: .seconds(30))
        #expect(work.failed == 0 && work.remaining == 0, "\(work)")
        let record = try EntitlementRepository(store: store).record(story.originalTransactionId)
        #expect(record == (try LifecycleSimulator.inOrderRecord(story.notifications)))
        #expect(record?.renewal?.autoRenewStatus == 0)

        // Asked again from the first page: everything is known, nothing is queued.
        let again = try recovery.run(query, restart: true, outOfTime: { false })
        #expect(again.queued == 0 && again.alreadyKnown == 3, "\(again)")
        #expect(try store.pendingCount(in: StoreKeys.notificationQueue) == 0)
    }
}
