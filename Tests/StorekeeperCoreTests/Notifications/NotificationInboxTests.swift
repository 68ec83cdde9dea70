import Foundation
import StorekeeperCore
import Testing

/// The inbox and the worker in process, on a MemoryStore, with notifications the test PKI
/// signed: the path receive-notification and process-notifications take (their binaries are
/// tested in FunctionTests), without a process.
@Suite("Notification inbox in process: verified, stored and queued once; a duplicate applies once")
struct NotificationInboxTests {
    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    @Test func aNotificationIsStoredQueuedAndAppliedOnceHoweverOftenAppleSendsIt() throws {
        let store = MemoryStore()
        let inbox = NotificationInbox(verifier: try TestPKI.verifier(), store: store)
        var story = LifecycleSimulator()
        story.subscribe()
        let notification = story.notifications[0]
        let payload = try notification.signedPayload()
        let now = Self.date(story.now)

        let first = try inbox.receive(signedPayload: payload, now: now)
        #expect(first.receipt == .accepted(notificationUUID: notification.uuid, type: "SUBSCRIBED"))
        #expect(try store.get(StoreKeys.notification(notification.uuid)) != nil)
        #expect(try store.pendingCount(in: StoreKeys.notificationQueue) == 1)

        let retry = try inbox.receive(signedPayload: payload, now: now)
        #expect(retry.receipt == .duplicate(notificationUUID: notification.uuid))
        #expect(try store.pendingCount(in: StoreKeys.notificationQueue) == 1, "a duplicate queues nothing")

        let worker = NotificationProcessor(store: store, time: SystemTime())
        var report = try worker.run(budget: .seconds(30))
        #expect(report.applied == 1 && report.failed == 0 && report.remaining == 0, "\(report)")
        let record = try EntitlementRepository(store: store).record(story.originalTransactionId)
        #expect(record?.status == .active)
        #expect(record == (try LifecycleSimulator.inOrderRecord(story.notifications)))

        // Apple retries once more after the worker ran: still nothing to apply.
        #expect(try inbox.receive(signedPayload: payload, now: now).receipt == .duplicate(notificationUUID: notification.uuid))
        report = try worker.run(budget: .seconds(30))
        #expect(report == NotificationProcessor.Report())
        #expect(try EntitlementRepository(store: store).record(story.originalTransactionId) == record)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func aLifeDeliveredShuffledWithRetriesEndsAsDeliveredInOrder(seed: UInt64) throws {
        let store = MemoryStore()
        let inbox = NotificationInbox(verifier: try TestPKI.verifier(), store: store)
        var generator = SeededGenerator(seed: seed)
        var story = LifecycleSimulator()
        story.playRandomly(notifications: 8, using: &generator)
        let payloads = try story.notifications.map { try $0.signedPayload() }
        var deliveries = payloads + payloads.prefix(3)
        deliveries.shuffle(using: &generator)

        var accepted = 0
        for payload in deliveries {
            if case .accepted = try inbox.receive(signedPayload: payload, now: Self.date(story.now)).receipt { accepted += 1 }
        }
        #expect(accepted == payloads.count, "each notification is accepted once")
        let report = try NotificationProcessor(store: store, time: SystemTime()).run(budget: .seconds(30))
        #expect(report.failed == 0 && report.remaining == 0 && report.deadLettered == 0, "\(report)")
        #expect(report.applied + report.stale + report.duplicate + report.ignored == payloads.count, "\(report)")
        #expect(try EntitlementRepository(store: store).record(story.originalTransactionId)
                == (try LifecycleSimulator.inOrderRecord(story.notifications)))
    }

    @Test func aNotificationForAnEnvironmentNotAcceptedIsDroppedAndNothingIsWritten() throws {
        let store = MemoryStore()
        let inbox = NotificationInbox(verifier: try TestPKI.verifier(environments: ["Production"]), store: store)
        var story = LifecycleSimulator()
        story.subscribe()
        let delivery = try inbox.receive(signedPayload: try story.notifications[0].signedPayload(), now: Self.date(story.now))
        #expect(delivery.receipt == .droppedEnvironment(environment: "Sandbox"))
        #expect(store.keys.isEmpty)
    }

    @Test func aNotificationNotSignedByAppleIsRefusedBeforeTheStoreIsTouched() throws {
        let store = MemoryStore()
        let inbox = NotificationInbox(verifier: try TestPKI.verifier(), store: store)
        let forged = try TestPKI.sign(try TestPKI.notification(), key: "leaf-other-root",
                                      chain: ["leaf-other-root", "other-intermediate", "other-root"])
        #expect(throws: VerificationError.self) { try inbox.receive(signedPayload: forged, now: TestPKI.fixedTime) }
        #expect(store.keys.isEmpty)
    }
}
