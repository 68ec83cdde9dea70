import Foundation
import StorekeeperCore
import Testing

extension KeyValueStoreConformanceTests {
    static func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    @Test(arguments: StoreBackend.withMemoryStore)
    func oldestPendingJobFollowsEnqueueAcknowledgeAndBurial(backend: StoreBackend) async throws {
        let store = try backend.makeStore()
        #expect(try store.oldestPendingEnqueuedAt(in: "age") == nil)
        let before = Self.nowMilliseconds()
        #expect(try store.enqueue(Self.job("first", priority: 9), on: "age"))
        let first = try #require(try store.oldestPendingEnqueuedAt(in: "age"))
        // The store's clock (Redis: the server's) on this same machine: a second of slack.
        #expect(first >= before - 1_000 && first <= Self.nowMilliseconds() + 1_000)
        try await Task.sleep(for: .milliseconds(20))
        #expect(try store.enqueue(Self.job("second", priority: 1, maxAttempts: 1), on: "age"))
        // Claim order (priority) does not matter: the oldest job is the first enqueued.
        #expect(try store.oldestPendingEnqueuedAt(in: "age") == first)
        let claimed = try #require(try store.claim(from: "age", lease: .seconds(60)))
        #expect(claimed.job.id == "second")
        let leasedFirst = try #require(try store.claim(from: "age", lease: .seconds(60)))
        // Both leased: still pending, still counted.
        #expect(try store.oldestPendingEnqueuedAt(in: "age") == first)
        #expect(try store.acknowledge(leasedFirst))
        let second = try #require(try store.oldestPendingEnqueuedAt(in: "age"))
        #expect(second > first)
        // Released after its last attempt: dead, so no longer pending.
        #expect(try store.release(claimed, retryIn: .zero))
        #expect(try store.deadLetters(in: "age") == ["second"])
        #expect(try store.oldestPendingEnqueuedAt(in: "age") == nil)
        #expect(try store.oldestPendingEnqueuedAt(in: "other") == nil)
    }
}
