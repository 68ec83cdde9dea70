import Foundation
import RedisStore
import SQLiteStore
import StorekeeperCore
import StorekeeperTesting
import TestSupport
import Testing

/// Each store's report on itself (`StoreHealthReporting`), what doctor reads: the facts each
/// adapter gives, and that reading them writes nothing.
@Suite struct StoreHealthTests {
    static func bytes(_ path: String) -> [Data?] { [path, path + "-wal"].map { FileManager.default.contents(atPath: $0) } }

    @Test func sqliteReadOnlyReportsTheMarkJournalCheckAndDiskAndWritesNothing() throws {
        let folder = try TestDirectory.newFolder()
        let path = folder + "/store.db"
        let store = try SQLiteStore(path: path)
        try store.set("kept", [1, 2, 3], expiresIn: nil)
        let unmarked = try SQLiteStore.health(ofFileAt: path)
        #expect(unmarked.kind == .sqlite && unmarked.location == path && unmarked.layoutMark == nil)
        try store.set(StoreKeys.layoutVersion, Array("3".utf8), expiresIn: nil)

        let before = Self.bytes(path)
        let health = try SQLiteStore.health(ofFileAt: path)
        #expect(Self.bytes(path) == before)
        #expect(health.layoutMark == "3" && health.journalMode == "wal" && health.integrity == "ok")
        #expect((health.freeBytes ?? 0) > 0 && health.evictionPolicy == nil && health.appendOnly == nil)
        // The open store reports the same facts through its own connection.
        let own = try store.health()
        #expect(own.layoutMark == "3" && own.journalMode == "wal" && own.integrity == "ok")
    }

    @Test func sqliteMissingFileIsUnavailableAndNotCreated() throws {
        let path = try TestDirectory.newFolder() + "/absent/store.db"
        #expect(throws: StoreError(.unavailable, "")) { try SQLiteStore.health(ofFileAt: path) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func sqliteDamagedFileIsCorrupt() throws {
        let path = try TestDirectory.newFolder() + "/damaged.db"
        try DamagedDatabase.make(at: path)
        #expect(throws: StoreError(.corrupt, "")) { try SQLiteStore.health(ofFileAt: path) }
    }

    @Test(.enabled(if: RedisTestServer.shouldRun, "redis-server is not installed"))
    func redisReportsPolicyPersistenceAndVersion() throws {
        let store = try RedisStore(url: try RedisTestServer.freshDatabase())
        let health = try store.health()
        #expect(health.kind == .redis && health.layoutMark == nil)
        #expect(health.evictionPolicy == "noeviction" && health.evictionPolicySource == "CONFIG GET")
        // The test servers run without an append-only file.
        #expect(health.appendOnly == false && health.serverVersion?.isEmpty == false)
        try store.set(StoreKeys.layoutVersion, Array("3".utf8), expiresIn: nil)
        #expect(try store.health().layoutMark == "3")
    }

    @Test func memoryStoreAnswersAndEvictsNothing() throws {
        let store = MemoryStore()
        #expect(try store.health() == StoreHealth(kind: .memory, location: "memory"))
        try store.set(StoreKeys.layoutVersion, Array("3".utf8), expiresIn: nil)
        #expect(try store.health().layoutMark == "3")
    }
}
