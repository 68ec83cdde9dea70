import Foundation
import StorekeeperCore
import StorekeeperTesting
import Testing

/// A process killed at any write of the aggregator, then run again, leaves the same figures
/// as a run that was never interrupted: nothing counted twice, nothing lost.
@Suite("Metrics: a kill at any write, then a rerun, counts every event once")
struct MetricsKillTests {
    /// Forwards to a store and dies at its `killAt`-th write: that write and everything after it
    /// fails, as for a process killed there (nothing after the kill reaches the store).
    final class KillingStore: KeyValueStore {
        let inner: any KeyValueStore
        let killAt: Int
        private(set) var writes = 0

        init(_ inner: any KeyValueStore, killAt: Int) {
            self.inner = inner
            self.killAt = killAt
        }

        private func write() throws(StoreError) {
            writes += 1
            if writes >= killAt { throw StoreError(.unavailable, "killed at write \(killAt)") }
        }

        func get(_ key: String) throws(StoreError) -> StoredValue? {
            if writes >= killAt { throw StoreError(.unavailable, "dead") }
            return try inner.get(key)
        }
        func set(_ key: String, _ value: [UInt8], expiresIn: Duration?) throws(StoreError) {
            try write()
            try inner.set(key, value, expiresIn: expiresIn)
        }
        func delete(_ key: String) throws(StoreError) -> Bool { try write(); return try inner.delete(key) }
        func setIfAbsent(_ key: String, _ value: [UInt8], expiresIn: Duration?) throws(StoreError) -> Bool {
            try write()
            return try inner.setIfAbsent(key, value, expiresIn: expiresIn)
        }
        func compareAndSet(_ key: String, _ value: [UInt8], expectedVersion: Int64?, expiresIn: Duration?) throws(StoreError) -> Bool {
            try write()
            return try inner.compareAndSet(key, value, expectedVersion: expectedVersion, expiresIn: expiresIn)
        }
        func addToSet(_ key: String, _ member: String) throws(StoreError) -> Bool { try write(); return try inner.addToSet(key, member) }
        func removeFromSet(_ key: String, _ member: String) throws(StoreError) -> Bool {
            try write()
            return try inner.removeFromSet(key, member)
        }
        func setMembers(_ key: String) throws(StoreError) -> [String] { try inner.setMembers(key) }
        func enqueue(_ job: QueuedJob, on queue: String) throws(StoreError) -> Bool { try inner.enqueue(job, on: queue) }
        func setIfAbsentAndEnqueue(_ key: String, _ value: [UInt8], expiresIn: Duration?, job: QueuedJob, on queue: String) throws(StoreError) -> Bool {
            try inner.setIfAbsentAndEnqueue(key, value, expiresIn: expiresIn, job: job, on: queue)
        }
        func claim(from queue: String, lease: Duration) throws(StoreError) -> ClaimedJob? { try inner.claim(from: queue, lease: lease) }
        func acknowledge(_ job: ClaimedJob) throws(StoreError) -> Bool { try inner.acknowledge(job) }
        func release(_ job: ClaimedJob, retryIn: Duration) throws(StoreError) -> Bool { try inner.release(job, retryIn: retryIn) }
        func pendingCount(in queue: String) throws(StoreError) -> Int { try inner.pendingCount(in: queue) }
        func deadLetters(in queue: String) throws(StoreError) -> [String] { try inner.deadLetters(in: queue) }
        func oldestPendingEnqueuedAt(in queue: String) throws(StoreError) -> Int64? { try inner.oldestPendingEnqueuedAt(in: queue) }
        func appendToLog(_ log: String, _ entry: LogAppend) throws(StoreError) -> LogAppendOutcome { try inner.appendToLog(log, entry) }
        func logStreamVersion(_ log: String, stream: String) throws(StoreError) -> Int64 { try inner.logStreamVersion(log, stream: stream) }
        func readLog(_ log: String, after: Int64, limit: Int) throws(StoreError) -> [LogEntry] {
            if writes >= killAt { throw StoreError(.unavailable, "dead") }
            return try inner.readLog(log, after: after, limit: limit)
        }
        func logSequence(_ log: String, id: String) throws(StoreError) -> Int64? { try inner.logSequence(log, id: id) }
        func logBounds(_ log: String) throws(StoreError) -> LogBounds { try inner.logBounds(log) }
        func trimLog(_ log: String, recordedBefore: Int64, limit: Int) throws(StoreError) -> Int {
            try inner.trimLog(log, recordedBefore: recordedBefore, limit: limit)
        }
    }

    struct Figures: Equatable {
        var current: [MetricsCurrent?]
        var totals: [[String: Int]?]
        var days: [[String: [String: Int]]?]
        var states: [MetricsSubscriptionState?]
    }

    static func figures(_ store: any KeyValueStore) throws -> Figures {
        let shards = [MetricsShardID(app: MetricsWorld.appA, environment: "Production"),
                      MetricsShardID(app: MetricsWorld.appB, environment: "Sandbox")]
        let records = try shards.map { try store.get(StoreKeys.metricsShard($0), as: MetricsShard.self) }
        let states = try ["1", "2", "3"].map { id in
            try store.get(StoreKeys.metricsSubscription(shards[0], originalTransactionId: id), as: MetricsSubscriptionRecord.self)?.state
        } + [try store.get(StoreKeys.metricsSubscription(shards[1], originalTransactionId: "4"), as: MetricsSubscriptionRecord.self)?.state]
        return Figures(current: records.map { $0?.current }, totals: records.map { $0?.totals },
                       days: records.map { $0?.days }, states: states)
    }

    @Test func killedAtEveryWriteAndRunAgainTheFiguresAreThoseOfOneCleanRun() throws {
        var reference = MetricsWorld()
        try reference.playStory()
        let counting = KillingStore(reference.store, killAt: .max)
        let step = 4
        let clean = MetricsAggregator(store: counting)
        while try !clean.catchUp(maxEvents: step, now: MetricsWorld.start).caughtUp {}
        let expected = try Self.figures(reference.store)
        #expect(expected.states.allSatisfy { $0 != nil })
        #expect(counting.writes > 10, "the story makes enough writes to kill between shards and between batches")

        for killAt in 1...counting.writes {
            var world = MetricsWorld()
            try world.playStory()
            let dying = KillingStore(world.store, killAt: killAt)
            let aggregator = MetricsAggregator(store: dying)
            var died = false
            do {
                while try !aggregator.catchUp(maxEvents: step, now: MetricsWorld.start).caughtUp {}
            } catch {
                died = true
            }
            #expect(died, "write \(killAt) is reached")
            try world.catchUp(step: step, now: MetricsWorld.start)
            #expect(try Self.figures(world.store) == expected, "killed at write \(killAt) of \(counting.writes)")
        }
    }

    @Test func twoAggregatorsInTurnOnTheSameBatchesCountOnce() throws {
        var world = MetricsWorld()
        try world.playStory()
        let first = MetricsAggregator(store: world.store)
        let second = MetricsAggregator(store: world.store)
        // Each reads from the cursor it finds; the second starts before the first moved it.
        _ = try first.catchUp(maxEvents: 6, now: MetricsWorld.start)
        try world.store.set(StoreKeys.metricsCursor, record: MetricsCursor(sequence: 0), expiresIn: nil)
        _ = try second.catchUp(maxEvents: 12, now: MetricsWorld.start)
        _ = try first.catchUp(maxEvents: 12, now: MetricsWorld.start)
        var reference = MetricsWorld()
        try reference.playStory()
        try reference.catchUp(now: MetricsWorld.start)
        #expect(try Self.figures(world.store) == Self.figures(reference.store))
    }
}
