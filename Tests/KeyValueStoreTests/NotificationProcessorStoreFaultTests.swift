import Foundation
import SQLiteStore
import StorekeeperCore
import StorekeeperTesting
import Testing

/// The worker's failure accounting when the store itself fails after a claim went through:
/// the run stops (exit 75) instead of counting the job as failed, giving it back with
/// backoff and, run after run, spending its attempts until it is dead-lettered.
@Suite struct NotificationProcessorStoreFaultTests {
    /// Queues from one store, values from another, so a real SQLite failure (a damaged file)
    /// meets the worker between its claim and its acknowledgement.
    final class SplitStore: KeyValueStore {
        let queues: any KeyValueStore
        let values: any KeyValueStore

        init(queues: any KeyValueStore, values: any KeyValueStore) {
            self.queues = queues
            self.values = values
        }

        func get(_ key: String) throws(StoreError) -> StoredValue? { try values.get(key) }
        func set(_ key: String, _ value: [UInt8], expiresIn: Duration?) throws(StoreError) { try values.set(key, value, expiresIn: expiresIn) }
        func delete(_ key: String) throws(StoreError) -> Bool { try values.delete(key) }
        func setIfAbsent(_ key: String, _ value: [UInt8], expiresIn: Duration?) throws(StoreError) -> Bool {
            try values.setIfAbsent(key, value, expiresIn: expiresIn)
        }
        func compareAndSet(_ key: String, _ value: [UInt8], expectedVersion: Int64?, expiresIn: Duration?) throws(StoreError) -> Bool {
            try values.compareAndSet(key, value, expectedVersion: expectedVersion, expiresIn: expiresIn)
        }
        func addToSet(_ key: String, _ member: String) throws(StoreError) -> Bool { try values.addToSet(key, member) }
        func removeFromSet(_ key: String, _ member: String) throws(StoreError) -> Bool { try values.removeFromSet(key, member) }
        func setMembers(_ key: String) throws(StoreError) -> [String] { try values.setMembers(key) }
        func enqueue(_ job: QueuedJob, on queue: String) throws(StoreError) -> Bool { try queues.enqueue(job, on: queue) }
        func setIfAbsentAndEnqueue(_ key: String, _ value: [UInt8], expiresIn: Duration?, job: QueuedJob, on queue: String) throws(StoreError) -> Bool {
            try queues.setIfAbsentAndEnqueue(key, value, expiresIn: expiresIn, job: job, on: queue)
        }
        func claim(from queue: String, lease: Duration) throws(StoreError) -> ClaimedJob? { try queues.claim(from: queue, lease: lease) }
        func acknowledge(_ job: ClaimedJob) throws(StoreError) -> Bool { try queues.acknowledge(job) }
        func release(_ job: ClaimedJob, retryIn: Duration) throws(StoreError) -> Bool { try queues.release(job, retryIn: retryIn) }
        func pendingCount(in queue: String) throws(StoreError) -> Int { try queues.pendingCount(in: queue) }
        func deadLetters(in queue: String) throws(StoreError) -> [String] { try queues.deadLetters(in: queue) }
        func oldestPendingEnqueuedAt(in queue: String) throws(StoreError) -> Int64? { try queues.oldestPendingEnqueuedAt(in: queue) }
        func appendToLog(_ log: String, _ entry: LogAppend) throws(StoreError) -> LogAppendOutcome { try values.appendToLog(log, entry) }
        func logStreamVersion(_ log: String, stream: String) throws(StoreError) -> Int64 { try values.logStreamVersion(log, stream: stream) }
        func readLog(_ log: String, after: Int64, limit: Int) throws(StoreError) -> [LogEntry] {
            try values.readLog(log, after: after, limit: limit)
        }
        func logSequence(_ log: String, id: String) throws(StoreError) -> Int64? { try values.logSequence(log, id: id) }
        func logBounds(_ log: String) throws(StoreError) -> LogBounds { try values.logBounds(log) }
        func trimLog(_ log: String, recordedBefore: Int64, limit: Int) throws(StoreError) -> Int {
            try values.trimLog(log, recordedBefore: recordedBefore, limit: limit)
        }
    }

    @Test func aDamagedStoreStopsTheRunAndSpendsNoAttempt() throws {
        let queues = try SQLiteStore(path: TestDirectory.newPath("queues.db"))
        // A real notification, verified and queued by the inbox (on a memory store), moved to
        // the queue store: applying it reads the subscription's record from the damaged store.
        let received = MemoryStore()
        var story = LifecycleSimulator()
        story.subscribe()
        let notification = story.notifications[0]
        _ = try NotificationInbox(verifier: try TestPKI.verifier(), store: received)
            .receive(signedPayload: try notification.signedPayload(), now: Date(timeIntervalSince1970: Double(story.now) / 1000))
        let job = try #require(try received.claim(from: StoreKeys.notificationQueue, lease: .seconds(60))).job
        try queues.enqueue(job, on: StoreKeys.notificationQueue)
        let path = TestDirectory.newPath("values.db")
        try DamagedDatabase.make(at: path)
        let damaged = try SQLiteStore(path: path)
        let processor = NotificationProcessor(store: SplitStore(queues: queues, values: damaged), lease: .seconds(600), time: SystemTime())
        var failures: [String] = []

        let error = #expect(throws: StoreError.self) {
            _ = try processor.run(budget: .seconds(30)) { id, _ in failures.append(id) }
        }
        #expect(error?.code == "store_corrupt" && error?.isRetryable == true, "\(String(describing: error))")
        #expect(failures.isEmpty, "a store fault is not the notification's failure")
        #expect(job.id == notification.uuid)
        // Still queued (leased): the next run after the lease takes it up again.
        #expect(try queues.pendingCount(in: StoreKeys.notificationQueue) == 1)
    }
}
