import Foundation
import Glibc
@testable import RedisStore
import StorekeeperCore
import TestSupport
import Testing

/// The Redis store on a real Redis Cluster of `redis-server` processes on loopback
/// (`RedisTestCluster`): commands reach their slot's primary from any node's URL, MOVED and
/// ASK are followed, a killed primary's replica takes over without losing what was
/// acknowledged, and a write no replica confirms in time is an outage. The store's contract
/// on a cluster is KeyValueStoreConformanceTests (StoreBackend.redisCluster).
@Suite("RedisStore on a Redis Cluster", .enabled(if: RedisTestServer.shouldRun,
                                                  "redis-server is not installed (apt-get install redis-server); with CI set this fails instead"))
struct RedisClusterTests {
    static func keyCount(_ node: RedisTestServer) -> Int {
        let answer = RedisTestServer.rawCommand("DBSIZE\r\n", port: node.port) ?? ""
        return Int(answer.dropFirst().prefix { $0.isNumber }) ?? -1
    }

    static func slot(_ key: String) -> Int { RedisHashSlot.of(key) }

    /// The slot of a key, as the cluster itself computes it (`CLUSTER KEYSLOT`).
    static func serverSlot(_ key: String, on node: RedisTestServer) -> Int? {
        let answer = RedisTestServer.rawCommand("CLUSTER KEYSLOT \(key)\r\n", port: node.port) ?? ""
        return Int(answer.dropFirst().prefix { $0.isNumber })
    }

    @Test func hashSlotsAreTheClustersOwn() throws {
        // The specification's example, then the server's answers for keys of the real layout.
        #expect(RedisHashSlot.crc16(Array("123456789".utf8)) == 0x31C3)
        let cluster = try RedisTestCluster.start(primaries: 1)
        let keys = ["user:u-1:customer", "{notifications}", "{notifications}:n:1c9a", "{events}:entries", "a{}b", "{}x", "{x}}y",
                    "appstore:app:com.example:entitlement:2000000123", "foo{bar}{zap}", "é{ü}"]
        for key in keys {
            #expect(Self.slot(key) == Self.serverSlot(key, on: cluster.primaries[0]), "\(key)")
        }
    }

    @Test func anyNodesURLReachesEveryKeyAndCustomersSpreadOverThePrimaries() throws {
        let cluster = try RedisTestCluster.start(primaries: 3)
        // The URL of the last primary: two thirds of the keys live elsewhere.
        let store = try RedisStore(url: cluster.url(node: 2))
        #expect(store.isCluster)
        for user in 0..<90 {
            try store.set(StoreKeys.customer("user-\(user)"), Array("c\(user)".utf8), expiresIn: nil)
            try store.addToSet(StoreKeys.userSubscriptions("user-\(user)"), "200000\(user)")
        }
        for user in 0..<90 {
            #expect(try store.get(StoreKeys.customer("user-\(user)"))?.bytes == Array("c\(user)".utf8))
            #expect(try store.setMembers(StoreKeys.userSubscriptions("user-\(user)")) == ["200000\(user)"])
        }
        let counts = cluster.primaries.map(Self.keyCount)
        #expect(counts.reduce(0, +) == 180)
        #expect(counts.allSatisfy { $0 >= 30 }, "customers' keys spread over every primary: \(counts)")
        // A queue and a log each live whole in their own slot, on one primary.
        try store.enqueue(QueuedJob(id: "j1", payload: [1]), on: StoreKeys.notificationQueue)
        let claimed = try #require(try store.claim(from: StoreKeys.notificationQueue, lease: .seconds(30)))
        #expect(try store.acknowledge(claimed))
        #expect(try store.appendToLog(StoreKeys.eventLog, LogAppend(id: "e1", stream: "user-1", expectedStreamVersion: 0,
                                                                   recordedAt: 1, bytes: [9])) == .appended(sequence: 1, streamVersion: 1))
        #expect(try store.readLog(StoreKeys.eventLog, after: 0, limit: 10).map(\.bytes) == [[9]])
    }

    /// A slot handed to another primary while a store holds the old map: the old primary
    /// answers MOVED, the store follows it, and later commands go straight to the new one.
    @Test func aMovedSlotIsFollowed() throws {
        let cluster = try RedisTestCluster.start(primaries: 3)
        let store = try RedisStore(url: cluster.url())
        let key = "moving-key"
        let slot = Self.slot(key)
        let from = try #require(cluster.primary(servingSlot: slot))
        let to = try #require(cluster.primaries.first { $0 !== from })
        let toID = try #require(RedisTestServer.bulkCommand("CLUSTER MYID", port: to.port))
        for node in cluster.nodes {
            #expect(RedisTestServer.rawCommand("CLUSTER SETSLOT \(slot) NODE \(toID)\r\n", port: node.port)?.hasPrefix("+OK") == true)
        }
        try store.set(key, [1, 2, 3], expiresIn: nil)
        #expect(try store.get(key)?.bytes == [1, 2, 3])
        #expect(Self.keyCount(to) == 1 && Self.keyCount(from) == 0)
    }

    /// A slot half way through migrating: the source answers ASK for a key it no longer has,
    /// and the store asks the target once, after ASKING, without changing its map.
    @Test func aMigratingSlotIsAskedOfItsTarget() throws {
        let cluster = try RedisTestCluster.start(primaries: 2)
        let store = try RedisStore(url: cluster.url())
        let key = "asked-key"
        let slot = Self.slot(key)
        let from = try #require(cluster.primary(servingSlot: slot))
        let to = try #require(cluster.primaries.first { $0 !== from })
        let fromID = try #require(RedisTestServer.bulkCommand("CLUSTER MYID", port: from.port))
        let toID = try #require(RedisTestServer.bulkCommand("CLUSTER MYID", port: to.port))
        #expect(RedisTestServer.rawCommand("CLUSTER SETSLOT \(slot) IMPORTING \(fromID)\r\n", port: to.port)?.hasPrefix("+OK") == true)
        #expect(RedisTestServer.rawCommand("CLUSTER SETSLOT \(slot) MIGRATING \(toID)\r\n", port: from.port)?.hasPrefix("+OK") == true)
        try store.set(key, [7], expiresIn: nil)
        #expect(Self.keyCount(to) == 1 && Self.keyCount(from) == 0, "the new key went to the slot's target")
        #expect(try store.get(key)?.bytes == [7])
        // The map is unchanged: the slot still belongs to the source until the migration ends.
        #expect(cluster.primary(servingSlot: slot) === from)
    }

    /// Killed right after it acknowledged: a primary whose writes each waited for its replica
    /// loses none of them. The replica takes over within the store's failover wait, and a
    /// store opened afterwards (a new process) sees every acknowledged change.
    @Test(.timeLimit(.minutes(2)))
    func aPrimaryKilledRightAfterAnAcknowledgementLosesNothing() throws {
        let cluster = try RedisTestCluster.start(primaries: 3, replicasEach: 1, durable: true)
        let queue = StoreKeys.notificationQueue
        let victim = try #require(cluster.primary(servingSlot: RedisHashSlot.of(queue)))
        let store = try RedisStore(url: cluster.url(), failoverWait: .seconds(20))
        for index in 0..<20 {
            #expect(try store.setIfAbsentAndEnqueue(StoreKeys.notification("n\(index)"), [UInt8(index)],
                                                   expiresIn: nil, job: QueuedJob(id: "n\(index)", payload: [UInt8(index)]), on: queue))
        }
        for _ in 0..<10 {
            let job = try #require(try store.claim(from: queue, lease: .seconds(60)))
            #expect(try store.acknowledge(job))
        }
        let last = try #require(try store.claim(from: queue, lease: .seconds(60)))
        #expect(try store.acknowledge(last))
        victim.kill()

        let began = ContinuousClock.now
        let after = try RedisStore(url: cluster.url(node: cluster.nodes.firstIndex { $0 !== victim } ?? 0), failoverWait: .seconds(20))
        #expect(try after.pendingCount(in: queue) == 9, "the 11 acknowledged jobs stay acknowledged")
        let waited = ContinuousClock.now - began
        let promoted = try #require(cluster.primary(servingSlot: RedisHashSlot.of(queue), excluding: [victim]))
        #expect(promoted !== victim && cluster.replicas.joined().contains { $0 === promoted }, "a replica took the slot over")
        for index in 0..<20 {
            #expect(try after.get(StoreKeys.notification("n\(index)"))?.bytes == [UInt8(index)])
        }
        // The new primary takes writes (it has no replica left, so none is waited for).
        let next = try #require(try after.claim(from: queue, lease: .seconds(60)))
        #expect(try after.acknowledge(next))
        #expect(try after.pendingCount(in: queue) == 8)
        // The store that was talking to the victim: its first command may be the one in
        // flight when the primary died (never resent: .unavailable), then it follows the map.
        do { _ = try store.pendingCount(in: queue) } catch { #expect(error.kind == .unavailable) }
        #expect(try store.pendingCount(in: queue) == 8)
        print("RedisClusterTests: the failover was waited out in \(waited)")
    }

    /// With its replica frozen, a write on the primary cannot be confirmed durable: it is an
    /// outage (exit 75, HTTP 503), so the caller does not acknowledge what rests on one
    /// machine. Reads do not wait. Once the replica is back, writes go through again.
    @Test func aWriteNoReplicaConfirmsInTimeIsUnavailable() throws {
        let cluster = try RedisTestCluster.start(primaries: 1, replicasEach: 1)
        let store = try RedisStore(url: cluster.url(), timeout: .milliseconds(400))
        try store.set("k", [1], expiresIn: nil)
        let replica = cluster.replicas[0][0]
        replica.pause()
        defer { replica.resume() }
        do {
            try store.set("k", [2], expiresIn: nil)
            Issue.record("a write with its replica frozen was acknowledged")
        } catch {
            #expect(error.kind == .unavailable && error.reason.contains("no replica acknowledged"), "\(error.reason)")
        }
        #expect(try store.get("k") != nil)
        replica.resume()
        try store.set("k", [3], expiresIn: nil)
        #expect(try store.get("k")?.bytes == [3])
    }

    /// A cluster whose primary for a slot is down and has no replica: the store waits for
    /// `failoverWait`, then answers `.unavailable`, never a wrong node's answer.
    @Test func aSlotWithoutAPrimaryIsUnavailableAfterTheWait() throws {
        let cluster = try RedisTestCluster.start(primaries: 2)
        let key = "orphaned-key"
        let victim = try #require(cluster.primary(servingSlot: Self.slot(key)))
        let survivor = try #require(cluster.primaries.first { $0 !== victim })
        let store = try RedisStore(url: survivor.url(), failoverWait: .milliseconds(600))
        victim.kill()
        let began = ContinuousClock.now
        do {
            _ = try store.get(key)
            Issue.record("a read of a slot whose primary is gone answered")
        } catch {
            #expect(error.kind == .unavailable, "\(error.reason)")
        }
        #expect(ContinuousClock.now - began >= .milliseconds(600))
    }
}
