import Foundation
import StorekeeperCore
import StorekeeperTesting
import Testing

/// The copy port (`StoreContents`) on every store: a store filled through the key-value port
/// (values with and without expiry, a set larger than a page's item, a queue with jobs ready,
/// backing off, leased and dead, a trimmed log with streams) copied by `StoreCopier` into
/// every store, SQLite, Redis and memory alike, then compared, used and tampered with.
@Suite("StoreContents: every store copies into every store")
struct StoreContentsConformanceTests {
    struct Pair: CustomTestStringConvertible, Sendable {
        let source: StoreBackend
        let target: StoreBackend
        var testDescription: String { "\(source.name) → \(target.name)" }
    }

    static let everyPair: [StoreBackend] = [.sqlite] + StoreBackend.redisWhenAvailable.filter { $0.name == "Redis" } + [.memory]
    /// A Redis Cluster walks each primary in turn: copied to and from SQLite (each cluster is
    /// three redis-servers of its own, so not in every pair).
    static let cluster = StoreBackend.redisWhenAvailable.filter { $0.name == "Redis Cluster" }
    static let backends: [StoreBackend] = everyPair + cluster
    static let pairs: [Pair] = everyPair.flatMap { source in everyPair.map { Pair(source: source, target: $0) } }
        + cluster.flatMap { [Pair(source: .sqlite, target: $0), Pair(source: $0, target: .sqlite)] }

    static let queue = "{work}"
    static let log = "{journal}"

    static func open(_ backend: StoreBackend) throws -> any StoreContents {
        try #require(try backend.makeStore() as? any StoreContents, "\(backend.name) is no StoreContents")
    }

    /// Jobs a..f: a leased (priority 0), b backing off for a minute, c released at once (ready,
    /// one attempt), d dead (one attempt allowed), e and f never claimed.
    static func fill(_ store: any StoreContents) throws {
        try store.set("plain", Array("one".utf8), expiresIn: nil)
        try store.set("cached", Array("two".utf8), expiresIn: .seconds(30))
        try store.set("fleeting", Array("gone".utf8), expiresIn: .milliseconds(1))
        for index in 0..<250 { try store.addToSet("members", "m\(index)") }
        try store.addToSet("small", "only")
        try store.enqueue(QueuedJob(id: "a", payload: Array("A".utf8), priority: 0), on: queue)
        for id in ["b", "c"] { try store.enqueue(QueuedJob(id: id, payload: Array(id.utf8)), on: queue) }
        try store.enqueue(QueuedJob(id: "d", payload: Array("d".utf8), maxAttempts: 1), on: queue)
        for id in ["e", "f"] { try store.enqueue(QueuedJob(id: id, payload: Array(id.utf8)), on: queue) }
        #expect(try store.claim(from: queue, lease: .seconds(60))?.job.id == "a")
        let b = try #require(try store.claim(from: queue, lease: .seconds(60)))
        let c = try #require(try store.claim(from: queue, lease: .seconds(60)))
        let d = try #require(try store.claim(from: queue, lease: .seconds(60)))
        #expect(b.job.id == "b" && c.job.id == "c" && d.job.id == "d")
        try store.release(d, retryIn: .zero)
        try store.release(b, retryIn: .seconds(60))
        try store.release(c, retryIn: .zero)
        for index in 1...250 {
            let stream = "c:\(index % 5)"
            let version = try store.logStreamVersion(log, stream: stream)
            _ = try store.appendToLog(log, LogAppend(id: "e\(index)", stream: index % 7 == 0 ? nil : stream,
                                                     expectedStreamVersion: version, recordedAt: Int64(index), bytes: Array("entry \(index)".utf8)))
        }
        #expect(try store.trimLog(log, recordedBefore: 21, limit: 100) == 20)
        Thread.sleep(forTimeInterval: 0.01)
    }

    /// Every item of a walk, `limit` at a time.
    static func walk(_ store: any StoreContents, limit: Int) throws -> [StoreItem] {
        var items: [StoreItem] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try store.contents(after: cursor, limit: limit)
            #expect(page.items.count <= limit, "a page of \(page.items.count) items for a limit of \(limit)")
            items += page.items
            cursor = page.next
            pages += 1
        } while cursor != nil && pages < 10_000
        return items
    }

    static func copier(_ source: any StoreContents, _ target: any StoreContents) -> StoreCopier {
        StoreCopier(source: source, target: target, sourceIdentity: "test-source", time: SystemTime())
    }

    @Test(arguments: pairs)
    func aCopyHoldsEverythingAndVerifies(_ pair: Pair) throws {
        let source = try Self.open(pair.source)
        let target = try Self.open(pair.target)
        try Self.fill(source)
        let result = try Self.copier(source, target).copy()
        #expect(result.copied.values == 2 && result.copied.setMembers == 251 && result.copied.jobs == 6)
        #expect(result.copied.logEntries == 230 && result.resumed == false)
        #expect(try Self.copier(source, target).verify(limit: 10).differences == [])
        // A second pass finds everything there.
        let again = try Self.copier(source, target).copy()
        #expect(again.copied == StoreCopyCounts(), "a second pass wrote \(again.copied)")
        #expect(again.skipped.jobs == 6 && again.skipped.logEntries == 230 && again.skipped.values == 2)

        #expect(try target.get("fleeting") == nil, "an expired value is not copied")
        let cached = try #require(try target.expiringValue("cached"))
        let left = try #require(cached.expiresAt) - Int64(Date().timeIntervalSince1970 * 1000)
        #expect(left > 25_000 && left <= 30_000, "30 s at the source, \(left) ms left in the target")
        #expect(try target.expiringValue("plain") == ExpiringValue(bytes: Array("one".utf8), expiresAt: nil))
        #expect(try target.setMembers("members").count == 250)
        #expect(try target.get(StoreKeys.copyProgress) == nil, "the progress goes once the pass is over")

        try Self.checkQueue(target)
        try Self.checkLog(target, source)
    }

    /// The leased job comes back when its lease ends (as ready then), the dead letter stays
    /// dead, attempts are kept, and the ready jobs come out in the source's order.
    static func checkQueue(_ target: any StoreContents) throws {
        let a = try #require(try target.job("a", in: queue))
        #expect(a.attempts == 1 && a.job.priority == 0)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(a.claimableAt.map { $0 > now + 50_000 } == true, "the leased job waits for its lease's end: \(a)")
        #expect(try target.job("b", in: queue)?.claimableAt.map { $0 > now + 50_000 } == true)
        #expect(try target.job("d", in: queue)?.state == .dead)
        #expect(try target.deadLetters(in: queue) == ["d"])
        #expect(try target.pendingCount(in: queue) == 5)
        var claimed: [String] = []
        while let job = try target.claim(from: queue, lease: .seconds(60)) { claimed.append(job.job.id) }
        #expect(claimed == ["c", "e", "f"])
        #expect(try target.job("c", in: queue)?.attempts == 2)
    }

    /// Same sequences, bounds, versions; the next append takes the next sequence.
    static func checkLog(_ target: any StoreContents, _ source: any StoreContents) throws {
        #expect(try target.logBounds(log) == LogBounds(first: 21, last: 250))
        #expect(try target.readLog(log, after: 0, limit: 1000) == source.readLog(log, after: 0, limit: 1000))
        #expect(try target.logSequence(log, id: "e5") == nil && target.logSequence(log, id: "e30") == 30)
        for stream in (0..<5).map({ "c:\($0)" }) {
            #expect(try target.logStreamVersion(log, stream: stream) == source.logStreamVersion(log, stream: stream))
        }
        let version = try target.logStreamVersion(log, stream: "c:1")
        #expect(try target.appendToLog(log, LogAppend(id: "next", stream: "c:1", expectedStreamVersion: version, recordedAt: 999, bytes: []))
                == .appended(sequence: 251, streamVersion: version + 1))
    }

    /// Redis answers a time to live, made absolute on reading: two walks differ by the
    /// milliseconds between them (the copy tests compare expiries within a tolerance).
    static func withoutExpiry(_ item: StoreItem) -> StoreItem {
        guard case .value(let key, let bytes, let expiresAt) = item else { return item }
        return .value(key: key, bytes: bytes, expiresAt: expiresAt.map { _ in 0 })
    }

    @Test(arguments: backends)
    func aWalkIsTheSameInPagesOfAnySize(_ backend: StoreBackend) throws {
        let store = try Self.open(backend)
        try Self.fill(store)
        let whole = try Self.walk(store, limit: 10_000)
        #expect(try Self.walk(store, limit: 1).map(Self.withoutExpiry) == whole.map(Self.withoutExpiry))
        #expect(try Self.walk(store, limit: 7).map(Self.withoutExpiry) == whole.map(Self.withoutExpiry))
        #expect(!whole.contains { if case .value(let key, _, _) = $0 { key == "fleeting" } else { false } })
        #expect(whole.filter { if case .job = $0 { true } else { false } }.count == 6)
    }

    @Test(arguments: backends)
    func aVerificationFindsAChangedValueAMissingKeyAndAnExtraKey(_ backend: StoreBackend) throws {
        let source = try Self.open(.sqlite)
        let target = try Self.open(backend)
        try Self.fill(source)
        _ = try Self.copier(source, target).copy()
        try target.set("plain", Array("changed".utf8), expiresIn: nil)
        try target.delete("cached")
        try target.set("extra", Array("x".utf8), expiresIn: nil)
        try target.removeFromSet("members", "m7")
        let verification = try Self.copier(source, target).verify(limit: 10)
        #expect(Set(verification.differences.map(\.item)) == ["plain", "cached", "extra", "members"], "\(verification.differences)")
        #expect(verification.differenceCount == 4 && !verification.passed)
        #expect(try Self.copier(source, target).verify(limit: 1).differences.count == 1)
    }
}
