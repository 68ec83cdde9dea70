import Foundation
import StorekeeperCore
import Testing

/// The behaviour every `KeyValueStore` must have, run against each of `StoreBackend.all`.
/// Values and versions here; sets, queues and cross-process races in the extensions.
///
/// Names that one atomic step touches together share a hash tag (`{...}`), as the port
/// requires, so the same tests run on a Redis Cluster.
@Suite struct KeyValueStoreConformanceTests {
    static let bytes: [UInt8] = [0, 1, 127, 128, 255, 0]

    /// Expiries are tested with a short one slept past and a long one that must survive;
    /// nothing asserts that a short expiry is still alive (the machine may pause). Tests that
    /// sleep are async, so a sleeping test does not hold one of the few test threads.
    static let shortExpiry = Duration.milliseconds(300)
    static let pastShortExpiry = Duration.milliseconds(700)

    // MARK: Values

    @Test(arguments: StoreBackend.all)
    func absentKeyReadsNil(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        #expect(try store.get("absent") == nil)
        #expect(try store.delete("absent") == false)
    }

    @Test(arguments: StoreBackend.all)
    func setThenGetKeepsBytesExactly(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try store.set("binary", Self.bytes, expiresIn: nil)
        try store.set("empty", [], expiresIn: nil)
        try store.set("clé:ü:🙂", Array("unicode key".utf8), expiresIn: .seconds(3_600))
        #expect(try store.get("binary")?.bytes == Self.bytes)
        #expect(try store.get("empty")?.bytes == [])
        #expect(try store.get("clé:ü:🙂")?.bytes == Array("unicode key".utf8))
        // Keys are exact: a prefix or a longer key is another key.
        #expect(try store.get("binar") == nil)
        #expect(try store.get("binary2") == nil)
    }

    @Test(arguments: StoreBackend.all)
    func everyWriteIncreasesTheVersion(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try store.set("k", [1], expiresIn: nil)
        let first = try #require(try store.get("k"))
        try store.set("k", [2], expiresIn: nil)
        let second = try #require(try store.get("k"))
        #expect(second.bytes == [2])
        #expect(second.version > first.version)
        #expect(try store.compareAndSet("k", [3], expectedVersion: second.version, expiresIn: nil))
        let third = try #require(try store.get("k"))
        #expect(third.version > second.version)
        // Reading does not write.
        #expect(try store.get("k")?.version == third.version)
    }

    @Test(arguments: StoreBackend.all)
    func deleteSaysWhetherTheKeyExisted(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try store.set("k", [1], expiresIn: nil)
        #expect(try store.delete("k"))
        #expect(try store.get("k") == nil)
        #expect(try store.delete("k") == false)
    }

    @Test(arguments: StoreBackend.all)
    func setIfAbsentWritesOnlyOnce(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        #expect(try store.setIfAbsent("k", [1], expiresIn: nil))
        #expect(try store.setIfAbsent("k", [2], expiresIn: nil) == false)
        #expect(try store.get("k")?.bytes == [1])
        try store.delete("k")
        #expect(try store.setIfAbsent("k", [3], expiresIn: nil))
        #expect(try store.get("k")?.bytes == [3])
    }

    @Test(arguments: StoreBackend.all)
    func expiredKeysAreAbsentEverywhere(backend: StoreBackend) async throws {
        let store = try backend.makeStore()
        try store.set("short", [1], expiresIn: Self.shortExpiry)
        #expect(try store.setIfAbsent("short-nx", [1], expiresIn: Self.shortExpiry))
        try store.set("short-cas", [1], expiresIn: Self.shortExpiry)
        let casVersion = try #require(try store.get("short-cas")).version
        try store.set("short-delete", [1], expiresIn: Self.shortExpiry)
        try store.set("long", [2], expiresIn: .seconds(3_600))
        try store.set("forever", [3], expiresIn: nil)

        try await Task.sleep(for: Self.pastShortExpiry)

        #expect(try store.get("short") == nil)
        #expect(try store.get("short-nx") == nil)
        #expect(try store.get("long")?.bytes == [2])
        #expect(try store.get("forever")?.bytes == [3])
        // An expired key can be taken again, is not there to delete, and its old version
        // no longer matches.
        #expect(try store.setIfAbsent("short-nx", [4], expiresIn: nil))
        #expect(try store.get("short-nx")?.bytes == [4])
        #expect(try store.delete("short-delete") == false)
        #expect(try store.compareAndSet("short-cas", [5], expectedVersion: casVersion, expiresIn: nil) == false)
        #expect(try store.get("short-cas") == nil)
        #expect(try store.compareAndSet("short-cas", [6], expectedVersion: nil, expiresIn: nil))
        #expect(try store.get("short-cas")?.bytes == [6])
    }

    @Test(arguments: StoreBackend.all)
    func writingWithoutExpiryRemovesAnEarlierExpiry(backend: StoreBackend) async throws {
        let store = try backend.makeStore()
        try store.set("set", [1], expiresIn: Self.shortExpiry)
        try store.set("set", [2], expiresIn: nil)
        try store.set("cas", [1], expiresIn: Self.shortExpiry)
        let version = try #require(try store.get("cas")).version
        #expect(try store.compareAndSet("cas", [2], expectedVersion: version, expiresIn: nil))

        try await Task.sleep(for: Self.pastShortExpiry)

        #expect(try store.get("set")?.bytes == [2])
        #expect(try store.get("cas")?.bytes == [2])
    }

    @Test(arguments: StoreBackend.all)
    func compareAndSetRefusesAStaleVersion(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try store.set("k", Array("1".utf8), expiresIn: nil)
        let read = try #require(try store.get("k"))
        // Somebody else writes in between.
        try store.set("k", Array("10".utf8), expiresIn: nil)
        #expect(try store.compareAndSet("k", Array("2".utf8), expectedVersion: read.version, expiresIn: nil) == false)
        #expect(try store.get("k")?.bytes == Array("10".utf8))
        // Read again and retry: now it goes through.
        let fresh = try #require(try store.get("k"))
        #expect(try store.compareAndSet("k", Array("11".utf8), expectedVersion: fresh.version, expiresIn: nil))
        #expect(try store.get("k")?.bytes == Array("11".utf8))
        // The version just used is stale now.
        #expect(try store.compareAndSet("k", Array("12".utf8), expectedVersion: fresh.version, expiresIn: nil) == false)
    }

    @Test(arguments: StoreBackend.all)
    func compareAndSetWithNoVersionCreatesOnlyAbsentKeys(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        #expect(try store.compareAndSet("k", [1], expectedVersion: nil, expiresIn: nil))
        #expect(try store.get("k")?.bytes == [1])
        #expect(try store.compareAndSet("k", [2], expectedVersion: nil, expiresIn: nil) == false)
        #expect(try store.get("k")?.bytes == [1])
        // A version on an absent key never matches.
        let version = try #require(try store.get("k")).version
        try store.delete("k")
        #expect(try store.compareAndSet("k", [3], expectedVersion: version, expiresIn: nil) == false)
        #expect(try store.get("k") == nil)
        #expect(try store.compareAndSet("never-written", [4], expectedVersion: 1, expiresIn: nil) == false)
        #expect(try store.get("never-written") == nil)
    }

    @Test(arguments: StoreBackend.all)
    func compareAndSetCanSetAnExpiry(backend: StoreBackend) async throws {
        let store = try backend.makeStore()
        #expect(try store.compareAndSet("k", [1], expectedVersion: nil, expiresIn: Self.shortExpiry))
        try store.set("other", [1], expiresIn: nil)
        let version = try #require(try store.get("other")).version
        #expect(try store.compareAndSet("other", [2], expectedVersion: version, expiresIn: Self.shortExpiry))

        try await Task.sleep(for: Self.pastShortExpiry)

        #expect(try store.get("k") == nil)
        #expect(try store.get("other") == nil)
    }

    @Test(arguments: StoreBackend.all)
    func storesAreIsolated(backend: StoreBackend) throws {
        let first = try backend.makeStore()
        let second = try backend.makeStore()
        try first.set("k", [1], expiresIn: nil)
        #expect(try second.get("k") == nil)
    }
}
