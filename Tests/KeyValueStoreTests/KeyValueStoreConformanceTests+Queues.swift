import StorekeeperCore
import Testing

extension KeyValueStoreConformanceTests {
    /// A lease (or backoff) that a test asserts is still in force right after it is taken:
    /// seconds, so no pause of a loaded machine between two store calls outlasts it.
    static let heldLease = Duration.seconds(3)

    /// Claims from `queue` as soon as a job is ready there: polled, not slept for a guess of
    /// how long the lease or backoff takes to run out. Nil when a minute has passed and it is
    /// still not ready. It always tries once more after a sleep, however long that sleep was:
    /// on two cores the few cooperative threads can all be held by blocking tests for longer
    /// than the minute (a whole-suite run under load did that), and a deadline checked before
    /// the next try would then give up on a job that had long been ready.
    static func claimOnceReady(_ queue: String, _ store: any KeyValueStore) async throws -> ClaimedJob? {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            if let claimed = try store.claim(from: queue, lease: .seconds(60)) { return claimed }
            if ContinuousClock.now >= deadline { return nil }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    static func job(_ id: String, priority: Int = 1, maxAttempts: Int = 8) -> QueuedJob {
        QueuedJob(id: id, payload: Array("payload of \(id)".utf8), priority: priority, maxAttempts: maxAttempts)
    }

    /// Claims until nothing is ready, acknowledging each; the ids in claim order.
    static func drain(_ queue: String, _ store: any KeyValueStore) throws -> [String] {
        var ids: [String] = []
        while let claimed = try store.claim(from: queue, lease: .seconds(60)) {
            ids.append(claimed.job.id)
            #expect(try store.acknowledge(claimed))
        }
        return ids
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func emptyQueueHasNothingToClaim(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        #expect(try store.claim(from: "q", lease: .seconds(60)) == nil)
        #expect(try store.pendingCount(in: "q") == 0)
        #expect(try store.deadLetters(in: "q") == [])
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func claimHandsOutTheJobAsEnqueued(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let job = QueuedJob(id: "n-1", payload: Self.bytes, priority: 3, maxAttempts: 5)
        #expect(try store.enqueue(job, on: "q"))
        #expect(try store.pendingCount(in: "q") == 1)
        let claimed = try #require(try store.claim(from: "q", lease: .seconds(60)))
        #expect(claimed.queue == "q")
        #expect(claimed.job == job)
        #expect(claimed.attempt == 1)
        #expect(!claimed.leaseToken.isEmpty)
        // Leased: hidden from other workers, still pending.
        #expect(try store.claim(from: "q", lease: .seconds(60)) == nil)
        #expect(try store.pendingCount(in: "q") == 1)
        #expect(try store.acknowledge(claimed))
        #expect(try store.pendingCount(in: "q") == 0)
        #expect(try store.acknowledge(claimed) == false)
        #expect(try store.claim(from: "q", lease: .seconds(60)) == nil)
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func jobsOfOnePriorityComeOutInOrder(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let ids = (0..<20).map { "job-\($0)" }
        for id in ids { #expect(try store.enqueue(Self.job(id), on: "q")) }
        #expect(try Self.drain("q", store) == ids)
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func lowerPriorityNumbersComeFirstThenOlder(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try store.enqueue(Self.job("renewal-1", priority: 2), on: "q")
        try store.enqueue(Self.job("refund-1", priority: 0), on: "q")
        try store.enqueue(Self.job("other-1", priority: 1), on: "q")
        try store.enqueue(Self.job("refund-2", priority: 0), on: "q")
        try store.enqueue(Self.job("renewal-2", priority: 2), on: "q")
        try store.enqueue(Self.job("other-2", priority: 1), on: "q")
        #expect(try Self.drain("q", store) == ["refund-1", "refund-2", "other-1", "other-2", "renewal-1", "renewal-2"])
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func aJobIdIsQueuedOnceWhateverItsState(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        #expect(try store.enqueue(Self.job("a"), on: "q"))
        #expect(try store.enqueue(QueuedJob(id: "a", payload: [9], priority: 0), on: "q") == false)
        #expect(try store.pendingCount(in: "q") == 1)
        // Leased.
        let claimed = try #require(try store.claim(from: "q", lease: .seconds(60)))
        #expect(claimed.job == Self.job("a"))
        #expect(try store.enqueue(Self.job("a"), on: "q") == false)
        // Dead.
        #expect(try store.enqueue(Self.job("d", maxAttempts: 1), on: "q"))
        let dying = try #require(try store.claim(from: "q", lease: .seconds(60)))
        #expect(try store.release(dying, retryIn: .zero))
        #expect(try store.deadLetters(in: "q") == ["d"])
        #expect(try store.enqueue(Self.job("d"), on: "q") == false)
        #expect(try store.pendingCount(in: "q") == 1)
        // The same id on another queue is another job.
        #expect(try store.enqueue(Self.job("a"), on: "other"))
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func queuesAreIndependent(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try store.enqueue(Self.job("x"), on: "q1")
        #expect(try store.claim(from: "q2", lease: .seconds(60)) == nil)
        #expect(try store.pendingCount(in: "q2") == 0)
        #expect(try store.claim(from: "q1", lease: .seconds(60))?.job.id == "x")
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func anExpiredLeaseMakesTheJobClaimableAgain(backend: StoreBackend) async throws {
        let store = try backend.makeStore()
        try store.enqueue(Self.job("j"), on: "q")
        let first = try #require(try store.claim(from: "q", lease: Self.heldLease))
        #expect(try store.claim(from: "q", lease: .seconds(60)) == nil)

        let second = try #require(try await Self.claimOnceReady("q", store))
        #expect(second.job == first.job)
        #expect(second.attempt == 2)
        #expect(second.leaseToken != first.leaseToken)
        // The first worker lost its lease: it can neither finish nor give back the job.
        #expect(try store.acknowledge(first) == false)
        #expect(try store.release(first, retryIn: .zero) == false)
        #expect(try store.pendingCount(in: "q") == 1)
        #expect(try store.acknowledge(second))
        #expect(try store.pendingCount(in: "q") == 0)
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func releaseWaitsForTheBackoff(backend: StoreBackend) async throws {
        let store = try backend.makeStore()
        try store.enqueue(Self.job("j"), on: "q")
        let first = try #require(try store.claim(from: "q", lease: .seconds(60)))
        #expect(try store.release(first, retryIn: Self.heldLease))
        #expect(try store.claim(from: "q", lease: .seconds(60)) == nil)
        #expect(try store.pendingCount(in: "q") == 1)
        // Released: the old token no longer holds a lease.
        #expect(try store.acknowledge(first) == false)

        let second = try #require(try await Self.claimOnceReady("q", store))
        #expect(second.job.id == "j")
        #expect(second.attempt == 2)
        #expect(try store.acknowledge(second))
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func releaseWithoutBackoffIsReadyAtOnceAndKeepsItsPlace(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try store.enqueue(Self.job("first"), on: "q")
        try store.enqueue(Self.job("second"), on: "q")
        let claimed = try #require(try store.claim(from: "q", lease: .seconds(60)))
        #expect(claimed.job.id == "first")
        #expect(try store.release(claimed, retryIn: .zero))
        let again = try #require(try store.claim(from: "q", lease: .seconds(60)))
        #expect(again.job.id == "first")
        #expect(again.attempt == 2)
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func releaseAfterTheLastAttemptDeadLetters(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try store.enqueue(Self.job("poison", maxAttempts: 2), on: "q")
        try store.enqueue(Self.job("fine", priority: 5), on: "q")
        let first = try #require(try store.claim(from: "q", lease: .seconds(60)))
        #expect(first.job.id == "poison")
        #expect(try store.release(first, retryIn: .zero))
        #expect(try store.deadLetters(in: "q") == [])
        let second = try #require(try store.claim(from: "q", lease: .seconds(60)))
        #expect(second.job.id == "poison")
        #expect(second.attempt == 2)
        #expect(try store.release(second, retryIn: .zero))
        #expect(try store.deadLetters(in: "q") == ["poison"])
        #expect(try store.pendingCount(in: "q") == 1)
        #expect(try Self.drain("q", store) == ["fine"])
        #expect(try store.deadLetters(in: "q") == ["poison"])
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func aJobOutOfAttemptsIsDeadLetteredByTheNextClaim(backend: StoreBackend) async throws {
        let store = try backend.makeStore()
        try store.enqueue(Self.job("crashes-its-worker", maxAttempts: 1), on: "q")
        try store.enqueue(Self.job("next", priority: 5), on: "q")
        let claimed = try #require(try store.claim(from: "q", lease: .milliseconds(300)))
        #expect(claimed.job.id == "crashes-its-worker")
        // The worker dies without acknowledging; its lease runs out.
        try await Task.sleep(for: .milliseconds(700))
        let next = try #require(try store.claim(from: "q", lease: .seconds(60)))
        #expect(next.job.id == "next")
        #expect(try store.deadLetters(in: "q") == ["crashes-its-worker"])
        #expect(try store.pendingCount(in: "q") == 1)
        #expect(try store.acknowledge(claimed) == false)
        #expect(try store.acknowledge(next))
        #expect(try store.claim(from: "q", lease: .seconds(60)) == nil)
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func deadLettersAreListedOldestFirst(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        for id in ["d-1", "d-2", "d-3"] {
            try store.enqueue(Self.job(id, maxAttempts: 1), on: "q")
        }
        for _ in 0..<3 {
            let claimed = try #require(try store.claim(from: "q", lease: .seconds(60)))
            #expect(try store.release(claimed, retryIn: .zero))
        }
        #expect(try store.deadLetters(in: "q") == ["d-1", "d-2", "d-3"])
        #expect(try store.deadLetters(in: "other") == [])
        #expect(try store.pendingCount(in: "q") == 0)
        #expect(try store.claim(from: "q", lease: .seconds(60)) == nil)
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func setIfAbsentAndEnqueueIsAllOrNothing(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let key = "{n-1}:notification", queue = "{n-1}:queue"
        #expect(try store.setIfAbsentAndEnqueue(key, [1], expiresIn: nil, job: Self.job("n-1"), on: queue))
        #expect(try store.get(key)?.bytes == [1])
        #expect(try store.pendingCount(in: queue) == 1)

        // The duplicate delivery: changes nothing, adds no second job.
        #expect(try store.setIfAbsentAndEnqueue(key, [2], expiresIn: nil, job: Self.job("n-1-again"), on: queue) == false)
        #expect(try store.get(key)?.bytes == [1])
        #expect(try store.pendingCount(in: queue) == 1)
        #expect(try Self.drain(queue, store) == ["n-1"])
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func setIfAbsentAndEnqueueTakesAnExpiredKey(backend: StoreBackend) async throws {
        let store = try backend.makeStore()
        let key = "{n-2}:notification", queue = "{n-2}:queue"
        #expect(try store.setIfAbsentAndEnqueue(key, [1], expiresIn: Self.shortExpiry, job: Self.job("a"), on: queue))
        try await Task.sleep(for: Self.pastShortExpiry)
        #expect(try store.setIfAbsentAndEnqueue(key, [2], expiresIn: nil, job: Self.job("b"), on: queue))
        #expect(try store.get(key)?.bytes == [2])
        #expect(try Self.drain(queue, store) == ["a", "b"])
    }
}
