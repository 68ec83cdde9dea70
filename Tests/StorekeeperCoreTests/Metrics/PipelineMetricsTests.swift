import Foundation
import StorekeeperCore
import StorekeeperTesting
import Testing

/// The pipeline's own counts: notifications by type once each (the worker, after its
/// acknowledgement), the last dead letter's error, reconciliation corrections.
@Suite("Metrics: the pipeline's counts")
struct PipelineMetricsTests {
    struct Clock: TimeSource {
        var at: Date
        func now() -> Date { at }
        func realNow() -> Date { at }
        func monotonic() -> Duration { .seconds(Date().timeIntervalSince1970) }
        func sleep(for duration: Duration) {}
    }

    static let shard = MetricsShardID(app: "com.example.storekeeper", environment: "Sandbox")

    @Test func eachNotificationIsCountedOnceByTypeAndTheWorkerCatchesTheFiguresUp() throws {
        let store = MemoryStore()
        let inbox = NotificationInbox(verifier: try TestPKI.verifier(), store: store)
        var story = LifecycleSimulator()
        story.subscribe()
        story.renew()
        story.setAutoRenew(false)
        let clock = Clock(at: Date(millisecondsSince1970: story.now + 1_000))
        let catalog = Catalog(apps: [], entitlements: [:], products: [:], productsImplied: true)
        let worker = NotificationProcessor(store: store, time: clock, events: EventRecording(catalog: catalog, time: clock, deferred: true))
        for notification in story.notifications {
            let payload = try notification.signedPayload()
            // Apple sends each twice; the second is a duplicate the inbox refuses.
            for _ in 0..<2 { _ = try inbox.receive(signedPayload: payload, now: clock.now()) }
        }
        #expect(try worker.run(budget: .seconds(30)).applied == 3)
        #expect(try worker.run(budget: .seconds(30)).applied == 0)

        let totals = try #require(try store.get(StoreKeys.metricsNotifications(Self.shard), as: NotificationCounts.self))
        #expect(totals.types == ["SUBSCRIBED": 1, "DID_RENEW": 1, "DID_CHANGE_RENEWAL_STATUS": 1])
        #expect(totals.lastReceivedAt == story.now + 1_000)
        let day = try store.get(StoreKeys.metricsNotificationDay(Self.shard, day: MetricsDay.of(story.now + 1_000)),
                                as: NotificationCounts.self)
        #expect(day?.types == totals.types)
        // The run ended with the metrics caught up on the events it logged.
        let figures = try #require(try store.get(StoreKeys.metricsShard(Self.shard), as: MetricsShard.self))
        #expect(figures.sequence == 3)
        #expect(figures.totals == ["new_purchase": 1, "renewal": 1, "active_change": 1])
        #expect(figures.current.statuses == ["auto_renew_off": 1])
    }

    @Test func aBusyRunCountsAHundredAtATimeAndTheRestAtItsEnd() throws {
        let store = MemoryStore()
        let inbox = NotificationInbox(verifier: try TestPKI.verifier(), store: store)
        var stories: [LifecycleSimulator] = []
        for index in 0..<(ReceivedTally.batch + 30) {
            var story = LifecycleSimulator(originalTransactionId: String(900_000 + index))
            story.subscribe()
            stories.append(story)
        }
        let clock = Clock(at: Date(millisecondsSince1970: stories[0].now + 1_000))
        for story in stories { _ = try inbox.receive(signedPayload: try story.notifications[0].signedPayload(), now: clock.now()) }
        // Killed at the end of the run, at its second count: the first batch stays counted.
        var countsWritten = 0
        store.killAtWrite = { key in
            if key == StoreKeys.metricsNotifications(Self.shard) { countsWritten += 1 }
            return countsWritten > 1
        }
        #expect(throws: (any Error).self) { try NotificationProcessor(store: store, time: clock, metricsCatchUp: 0).run(budget: .seconds(30)) }
        store.restart()
        let first = try store.get(StoreKeys.metricsNotifications(Self.shard), as: NotificationCounts.self)
        #expect(first?.types == ["SUBSCRIBED": ReceivedTally.batch])
        store.killAtWrite = nil
        _ = try NotificationProcessor(store: store, time: clock, metricsCatchUp: 0).run(budget: .seconds(30))
        let totals = try store.get(StoreKeys.metricsNotifications(Self.shard), as: NotificationCounts.self)
        // The thirty acknowledged after it were the batch the kill lost; nothing counts twice.
        #expect(totals?.types == ["SUBSCRIBED": ReceivedTally.batch])
        #expect(try store.pendingCount(in: StoreKeys.notificationQueue) == 0)
    }

    @Test func theLastAttemptOfAFailingNotificationLeavesItsErrorCode() throws {
        let store = MemoryStore()
        let clock = Clock(at: Date(millisecondsSince1970: 1_780_272_000_000))
        // Two jobs that cannot be applied: one with an attempt left, one on its last.
        try store.enqueue(QueuedJob(id: "00000000-0000-4000-8000-0000000000a1", payload: Array("{}".utf8), maxAttempts: 2),
                          on: StoreKeys.notificationQueue)
        #expect(try NotificationProcessor(store: store, time: clock).run(budget: .seconds(30)).failed == 1)
        #expect(try store.get(StoreKeys.metricsDeadLetter, as: DeadLetterNote.self) == nil, "an attempt is left")
        try store.enqueue(QueuedJob(id: "00000000-0000-4000-8000-0000000000a2", payload: Array("{}".utf8), maxAttempts: 1),
                          on: StoreKeys.notificationQueue)
        #expect(try NotificationProcessor(store: store, time: clock).run(budget: .seconds(30)).failed == 1)
        let note = try #require(try store.get(StoreKeys.metricsDeadLetter, as: DeadLetterNote.self))
        #expect(note.notificationUUID == "00000000-0000-4000-8000-0000000000a2")
        #expect(note.at == 1_780_272_000_000)
        #expect(!note.code.isEmpty && note.code != "error", "\(note.code): the wire code of the error")
    }

    @Test func correctionsAreCountedByKindPerDayAndInTotal() throws {
        let store = MemoryStore()
        let metrics = PipelineMetrics(store: store)
        let now: Int64 = 1_780_272_000_000
        try metrics.corrected(kind: "expired→active", bundleId: "com.example.a", at: now)
        try metrics.corrected(kind: "expired→active", bundleId: "com.example.a", at: now + 86_400_000)
        try metrics.corrected(kind: "active→refunded", bundleId: "com.example.a", at: now + 86_400_000)
        #expect(try store.get(StoreKeys.metricsCorrections(bundleId: "com.example.a"), as: CorrectionCounts.self)?.kinds
                == ["expired→active": 2, "active→refunded": 1])
        #expect(try store.get(StoreKeys.metricsCorrectionDay(bundleId: "com.example.a", day: MetricsDay.of(now)),
                              as: CorrectionCounts.self)?.kinds == ["expired→active": 1])
    }
}
