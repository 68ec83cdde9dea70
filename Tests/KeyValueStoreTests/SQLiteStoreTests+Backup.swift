import Foundation
@testable import SQLiteStore
import StorekeeperCore
import Testing

/// The SQLite store's copies of itself (`StoreBackups`): what backup-store and its restore
/// rely on. The copy under concurrent writers is tested through the binaries
/// (BackupStoreBinaryTests).
extension SQLiteStoreTests {
    @Suite struct Backups {
        /// A new empty file, as backup-store makes one before the copy.
        static func emptyFile(in folder: String, _ name: String) -> String {
            let path = folder + "/" + name
            FileManager.default.createFile(atPath: path, contents: nil)
            return path
        }

        @Test func theCopyIsOneFileInWALModeWithEveryKey() throws {
            let folder = try TestDirectory.newFolder()
            let store = try SQLiteStore(path: folder + "/store.db")
            for index in 0..<200 { try store.set("key-\(index)", Array("value \(index)".utf8), expiresIn: nil) }
            let path = Self.emptyFile(in: folder, "copy.db")

            let copy = try store.backUp(to: path)

            #expect(copy.check == "ok")
            #expect(copy.pageSize == 4_096 && copy.pages > 1)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            #expect(Int64(size) == copy.pages * copy.pageSize)
            // Self-contained: nothing beside it, and a store opened on it in WAL mode as the original.
            #expect(!FileManager.default.fileExists(atPath: path + "-wal") && !FileManager.default.fileExists(atPath: path + "-shm"))
            #expect(try SQLiteStoreTests.header(path).wal)
            let reopened = try SQLiteStore(path: path)
            for index in 0..<200 { #expect(try reopened.get("key-\(index)")?.bytes == Array("value \(index)".utf8)) }
        }

        @Test func restoreReplacesTheWholeStoreAndOtherConnectionsSeeIt() throws {
            let folder = try TestDirectory.newFolder()
            let store = try SQLiteStore(path: folder + "/store.db")
            try store.set("kept", Array("before".utf8), expiresIn: nil)
            let path = Self.emptyFile(in: folder, "copy.db")
            _ = try store.backUp(to: path)
            try store.set("kept", Array("after".utf8), expiresIn: nil)
            try store.set("added-after", Array("x".utf8), expiresIn: nil)
            let other = try SQLiteStore(path: folder + "/store.db")
            #expect(try other.get("added-after") != nil)

            let restored = try store.restore(from: path)

            #expect(restored.check == "ok" && restored.pages > 1)
            #expect(try other.get("kept")?.bytes == Array("before".utf8))
            #expect(try other.get("added-after") == nil)
            // And the store goes on working: writes after a restore land.
            try other.set("added-later", Array("y".utf8), expiresIn: nil)
            #expect(try store.get("added-later") != nil)
        }

        @Test func restoreRefusesAnEmptyFileAForeignDatabaseAndADamagedOne() throws {
            let folder = try TestDirectory.newFolder()
            let store = try SQLiteStore(path: folder + "/store.db")
            try store.set("kept", Array("here".utf8), expiresIn: nil)
            let empty = Self.emptyFile(in: folder, "empty.db")
            let damaged = folder + "/damaged.db"
            try DamagedDatabase.make(at: damaged)
            let foreign = folder + "/foreign.db"
            let python = Process()
            python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            python.arguments = ["python3", "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE t (x)'); c.commit()", foreign]
            try python.run()
            python.waitUntilExit()

            for path in [empty, damaged, foreign] {
                #expect(throws: StoreError(.corrupt, "")) { try store.restore(from: path) }
            }
            // A missing file is not created (that would restore an empty store).
            #expect(throws: StoreError.self) { try store.restore(from: folder + "/missing.db") }
            #expect(!FileManager.default.fileExists(atPath: folder + "/missing.db"))
            #expect(try store.get("kept")?.bytes == Array("here".utf8))
        }
    }
}
