import Foundation
@testable import SQLiteStore
import StorekeeperCore
import Testing

/// What only the SQLite store promises: the file it makes, how it opens, and how it behaves
/// while another process holds the write lock. The shared behaviour is in
/// KeyValueStoreConformanceTests.
@Suite struct SQLiteStoreTests {
    /// The database file's header: the magic string, the WAL format bytes (offsets 18 and 19:
    /// 2 means WAL) and the user_version (offset 60, big-endian).
    static func header(_ path: String) throws -> (magic: String, wal: Bool, userVersion: UInt32) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(100))
        try #require(bytes.count == 100)
        let magic = String(decoding: bytes[0..<15], as: UTF8.self)
        let userVersion = bytes[60..<64].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return (magic, bytes[18] == 2 && bytes[19] == 2, userVersion)
    }

    @Test func createsTheFileAndItsFoldersInWALMode() throws {
        let path = TestDirectory.newPath("var/nested/storekeeper.db")
        #expect(!FileManager.default.fileExists(atPath: path))
        do {
            let store = try SQLiteStore(path: path)
            try store.set("k", [1], expiresIn: nil)
        }
        // The file header says SQLite and WAL from the start; the schema version may still sit
        // in the WAL (connections do not checkpoint on close: see SQLiteConnection), so it is
        // asked through SQLite itself.
        let header = try Self.header(path)
        #expect(header.magic == "SQLite format 3")
        #expect(header.wal)
        let reopened = try SQLiteStore(path: path)
        #expect(try reopened.get("k")?.bytes == [1])
        #expect(try Self.userVersion(path) == Int(SQLiteSchema.version))
    }

    /// `PRAGMA user_version` as a fresh connection reads it (WAL included), via the sqlite3 shell.
    static func userVersion(_ path: String) throws -> Int? {
        Int(try shell(path, "PRAGMA user_version;"))
    }

    /// What the sqlite3 shell prints for `sql` on `path`, trimmed.
    static func shell(_ path: String, _ sql: String) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("uv-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        try? handle.close()
        process.waitUntilExit()
        return String(decoding: try Data(contentsOf: output), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func reopeningKeepsEverything() throws {
        let path = TestDirectory.newPath("store.db")
        do {
            let store = try SQLiteStore(path: path)
            try store.set("k", [1, 2, 3], expiresIn: nil)
            try store.addToSet("s", "m")
            try store.enqueue(QueuedJob(id: "j", payload: [4]), on: "q")
        }
        let reopened = try SQLiteStore(path: path)
        #expect(try reopened.get("k")?.bytes == [1, 2, 3])
        #expect(try reopened.setMembers("s") == ["m"])
        #expect(try reopened.claim(from: "q", lease: .seconds(60))?.job.payload == [4])
    }

    @Test func anEmptyPathIsAConfigurationError() {
        #expect(throws: StoreError(.invalidConfiguration, "")) { try SQLiteStore(path: "") }
    }

    @Test func aFileThatIsNotADatabaseIsCorruptAndRetryable() throws {
        let path = try TestDirectory.newFolder() + "/not-a-database.db"
        try Data(repeating: UInt8(ascii: "x"), count: 4_096).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
        #expect(error?.kind == .corrupt)
        #expect(error?.disposition == .retryLater && error?.isStoreFault == true)
        #expect(error?.reason.contains("not a database") == true, "\(String(describing: error))")
    }

    /// By the primary result code (the low byte), extended codes included; never by text.
    @Test(arguments: [
        (13, StoreError.Kind.full),            // SQLITE_FULL
        (8, .readOnly),                        // SQLITE_READONLY
        (8 | (4 << 8), .readOnly),             // SQLITE_READONLY_DBMOVED
        (3, .readOnly),                        // SQLITE_PERM
        (11, .corrupt),                        // SQLITE_CORRUPT
        (11 | (1 << 8), .corrupt),             // SQLITE_CORRUPT_VTAB
        (26, .corrupt),                        // SQLITE_NOTADB
        (5, .unavailable),                     // SQLITE_BUSY
        (5 | (2 << 8), .unavailable),          // SQLITE_BUSY_SNAPSHOT
        (6, .unavailable),                     // SQLITE_LOCKED
        (10 | (3 << 8), .unavailable),         // SQLITE_IOERR_WRITE
        (14, .unavailable),                    // SQLITE_CANTOPEN
        (7, .unavailable),                     // SQLITE_NOMEM
        (1, .failed),                          // SQLITE_ERROR
        (18, .failed),                         // SQLITE_TOOBIG
        (19 | (5 << 8), .failed),              // SQLITE_CONSTRAINT_NOTNULL
        (21, .failed),                         // SQLITE_MISUSE
    ] as [(Int32, StoreError.Kind)])
    func resultCodesAreClassifiedByTheirPrimaryCode(_ code: Int32, _ kind: StoreError.Kind) {
        #expect(SQLiteConnection.kind(of: code) == kind)
        // None of them is the caller's fault: every one is "retry later", none configuration.
        #expect(StoreError(SQLiteConnection.kind(of: code), "").disposition == .retryLater)
    }

    @Test func aDamagedDatabaseIsCorruptAndRetryable() throws {
        let path = TestDirectory.newPath("store.db")
        try DamagedDatabase.make(at: path)
        let store = try SQLiteStore(path: path)
        let error = #expect(throws: StoreError.self) { try store.get("filler-1") }
        #expect(error?.kind == .corrupt && error?.isRetryable == true, "\(String(describing: error))")
    }

    @Test func aPathThatCannotBeOpenedIsUnavailable() throws {
        // The "folder" is a regular file, so neither the folder nor the file can be made.
        let file = try TestDirectory.newFolder() + "/plain-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: file + "/store.db") }
        #expect(error?.kind == .unavailable)
        #expect(error?.isRetryable == true)
    }

    @Test func absurdDurationsSaturateInsteadOfCrashing() throws {
        let store = try SQLiteStore(path: TestDirectory.newPath("store.db"), busyTimeout: .seconds(Int64.max))
        try store.set("forever-ish", [1], expiresIn: .seconds(Int64.max))
        #expect(try store.get("forever-ish")?.bytes == [1])
        try store.set("already-gone", [1], expiresIn: .seconds(Int64.min))
        #expect(try store.get("already-gone") == nil)
        try store.enqueue(QueuedJob(id: "j", payload: []), on: "q")
        let claimed = try #require(try store.claim(from: "q", lease: .seconds(Int64.max)))
        #expect(try store.release(claimed, retryIn: .seconds(Int64.max)))
        #expect(try store.claim(from: "q", lease: .seconds(60)) == nil)
    }

    // MARK: Another process holding the write lock (the sqlite3 shell)

    static let shell = "/usr/bin/sqlite3"
    static var shellAvailable: Bool { FileManager.default.isExecutableFile(atPath: shell) }

    /// Starts the sqlite3 shell on `path`, runs `sql` in an open transaction and returns once
    /// the shell has printed `ready`, i.e. once it holds the write lock. End it with `.quit`,
    /// not by closing its input: a process another test spawns meanwhile may hold a copy of
    /// the pipe, and the shell would never see the end of its input.
    static func shellHoldingTransaction(_ path: String, _ sql: String) throws -> (Process, FileHandle) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = [path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\n\(sql)\nSELECT 'ready';\n".utf8))
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("ready") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw CocoaError(.fileReadUnknown) }  // the shell exited
            seen.append(chunk)
        }
        return (process, input.fileHandleForWriting)
    }

    @Test(.enabled(if: shellAvailable, "the sqlite3 shell (Debian package sqlite3) is not installed"))
    func aWriterWaitsForAnotherProcessWithinTheBusyTimeout() async throws {
        let path = TestDirectory.newPath("store.db")
        _ = try SQLiteStore(path: path)
        let (shell, input) = try Self.shellHoldingTransaction(path, "INSERT INTO kv VALUES ('held', x'01', 1, NULL);")
        // SIGKILL: a child of a test thread may have SIGTERM blocked (see ChildProcess).
        defer { if shell.isRunning { kill(shell.processIdentifier, SIGKILL) } }

        // Past its busy timeout, a writer gives up with a retryable error.
        let impatient = try SQLiteStore(path: path, busyTimeout: .milliseconds(200))
        let error = #expect(throws: StoreError.self) { try impatient.set("k", [1], expiresIn: nil) }
        #expect(error?.kind == .unavailable)
        #expect(error?.isRetryable == true)
        // Readers are not blocked (WAL) and do not see the uncommitted row.
        #expect(try impatient.get("held") == nil)

        // A patient writer waits for the commit, then goes through.
        async let patientWrite: Bool = withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    let patient = try SQLiteStore(path: path, busyTimeout: .seconds(30))
                    return try patient.setIfAbsent("after", [2], expiresIn: nil)
                })
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        input.write(Data("COMMIT;\n.quit\n".utf8))
        try input.close()
        #expect(try await patientWrite)
        shell.waitUntilExit()
        #expect(try impatient.get("held")?.bytes == [1])
        #expect(try impatient.get("after")?.bytes == [2])
    }

    @Test(.enabled(if: shellAvailable, "the sqlite3 shell (Debian package sqlite3) is not installed"))
    func aNewerSchemaIsRefused() throws {
        let path = TestDirectory.newPath("store.db")
        _ = try SQLiteStore(path: path)
        let (shell, input) = try Self.shellHoldingTransaction(path, "PRAGMA user_version = 99;")
        defer { if shell.isRunning { kill(shell.processIdentifier, SIGKILL) } }
        input.write(Data("COMMIT;\n.quit\n".utf8))
        try input.close()
        shell.waitUntilExit()
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
        #expect(error?.kind == .failed)
        // A newer build's file: retried (the rollout finishes), never a caller's mistake.
        #expect(error?.disposition == .retryLater)
    }
}

extension SQLiteStoreTests {
    /// A database of schema 1 (the legacy fixture, written before the logs) gains the log's
    /// tables on open, keeps its rows, and is at version 2 after.
    @Test func aSchemaOneDatabaseGainsTheLogTables() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/legacy-store/legacy-v1.db")
        let path = TestDirectory.newPath("legacy.db")
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture.path, toPath: path)
        #expect(try Self.userVersion(path) == 1)
        let before = try SQLiteStore(path: path)
        #expect(try Self.userVersion(path) == Int(SQLiteSchema.version))
        #expect(try before.get("appstore:entitlement:3000000001") != nil)
        #expect(try before.appendToLog("{events}", LogAppend(id: "e", stream: "user-1", expectedStreamVersion: 0,
                                                             recordedAt: 1, bytes: [1])) == .appended(sequence: 1, streamVersion: 1))
        let reopened = try SQLiteStore(path: path)
        #expect(try reopened.logBounds("{events}") == LogBounds(first: 1, last: 1))
    }
}
