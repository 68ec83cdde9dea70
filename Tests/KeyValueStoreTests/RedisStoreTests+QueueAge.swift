import Foundation
@testable import RedisStore
import StorekeeperCore
import TestSupport
import Testing

extension RedisStoreTests {
    static func enqueuedIds(_ store: RedisStore, _ queue: String) throws -> [String] {
        try RedisStore.strings(store.run(["ZRANGE", "{\(queue)}:enqueued", "0", "-1"], "test"), "test")
    }

    /// Jobs enqueued by a build before `{q}:enqueued` have no entry there: they claim,
    /// acknowledge and dead-letter as before; the age counts the jobs that have one.
    @Test func jobsOfAnOlderBuildStillClaimAcknowledgeAndDeadLetter() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        try store.enqueue(QueuedJob(id: "old-1", payload: [1]), on: "mail")
        try store.enqueue(QueuedJob(id: "old-2", payload: [2], maxAttempts: 1), on: "mail")
        _ = try store.run(["DEL", "{mail}:enqueued"], "test")
        #expect(try store.oldestPendingEnqueuedAt(in: "mail") == nil)
        try store.enqueue(QueuedJob(id: "new", payload: [3]), on: "mail")
        let newAt = try #require(try store.oldestPendingEnqueuedAt(in: "mail"))
        var claimed: [String: ClaimedJob] = [:]
        for _ in 0..<3 {
            let job = try #require(try store.claim(from: "mail", lease: .seconds(30)))
            claimed[job.job.id] = job
        }
        #expect(Set(claimed.keys) == ["old-1", "old-2", "new"])
        #expect(try store.acknowledge(#require(claimed["old-1"])))
        #expect(try store.release(#require(claimed["old-2"]), retryIn: .zero))
        #expect(try store.deadLetters(in: "mail") == ["old-2"])
        #expect(try store.pendingCount(in: "mail") == 1)
        #expect(try store.oldestPendingEnqueuedAt(in: "mail") == newAt)
        #expect(try store.acknowledge(#require(claimed["new"])))
        #expect(try store.oldestPendingEnqueuedAt(in: "mail") == nil)
        #expect(try Self.enqueuedIds(store, "mail") == [])
    }

    /// Burial takes the job out of `{q}:enqueued`; an entry left behind by an older build's
    /// acknowledge (which did not know the key) is dropped when the age is read.
    @Test func burialAndStaleEntriesLeaveTheAgeSet() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        try store.enqueue(QueuedJob(id: "doomed", payload: [1], maxAttempts: 1), on: "mail")
        try store.enqueue(QueuedJob(id: "kept", payload: [2]), on: "mail")
        #expect(try Self.enqueuedIds(store, "mail") == ["doomed", "kept"])
        let doomed = try #require(try store.claim(from: "mail", lease: .seconds(30)))
        #expect(doomed.job.id == "doomed")
        #expect(try store.release(doomed, retryIn: .zero))
        #expect(try Self.enqueuedIds(store, "mail") == ["kept"])
        let keptAt = try #require(try store.oldestPendingEnqueuedAt(in: "mail"))
        // As an older build's acknowledge leaves it: the job gone, its entry still there, older.
        _ = try store.run(["ZADD", "{mail}:enqueued", String(keptAt - 60_000), "gone"], "test")
        #expect(try store.oldestPendingEnqueuedAt(in: "mail") == keptAt)
        #expect(try Self.enqueuedIds(store, "mail") == ["kept"])
    }
}
