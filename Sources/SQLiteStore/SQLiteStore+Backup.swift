import FoundationEssentials
import StorekeeperCore

/// `backup-store`'s copies, with SQLite's online backup API (`SQLiteBackup`).
extension SQLiteStore: StoreBackups {
    public func backUp(to path: String) throws(StoreError) -> StoreCopy {
        let copy = try copyInto(path)
        // The copy's connection is closed now: SQLite checkpointed its WAL into the file and
        // removed the -wal and -shm files, so the file alone is the whole copy.
        if FileManager.default.fileExists(atPath: path + "-wal") {
            throw StoreError(.failed, "the copy at \(path) kept a -wal file after it was closed")
        }
        return copy
    }

    public func restore(from path: String) throws(StoreError) -> StoreCopy {
        let source = try SQLiteConnection(path: path, busyTimeout: busyTimeout, mustExist: true, checkpointOnClose: true)
        let check = try Self.integrityCheck(source)
        guard check == "ok" else { throw StoreError(.corrupt, "\(path) fails its integrity check: \(check)") }
        let version = try Self.pragma("user_version", on: source)
        // 0 is an empty file or another program's database: restoring it would empty the store.
        guard (1...SQLiteSchema.version).contains(version) else {
            throw StoreError(.corrupt, "\(path) is not a store this build knows (schema version \(version))")
        }
        let pageSize = try Self.pragma("page_size", on: source)
        let backup = try SQLiteBackup(from: source, into: connection)
        let pages = try backup.copyAll(until: time.monotonic() + busyTimeout, on: time)
        return StoreCopy(pages: pages, pageSize: pageSize, check: check)
    }

    /// Copies the store into a connection of its own on `path`, checks the copy and lets the
    /// connection go (closed when this returns).
    private func copyInto(_ path: String) throws(StoreError) -> StoreCopy {
        let destination = try SQLiteConnection(path: path, busyTimeout: busyTimeout, mustExist: true, checkpointOnClose: true)
        let backup = try SQLiteBackup(from: connection, into: destination)
        let pages = try backup.copyAll(until: time.monotonic() + busyTimeout, on: time)
        let check = try Self.integrityCheck(destination)
        guard check == "ok" else { throw StoreError(.corrupt, "the copy at \(path) fails its integrity check: \(check)") }
        return StoreCopy(pages: pages, pageSize: try Self.pragma("page_size", on: destination), check: check)
    }

    /// `PRAGMA integrity_check`: "ok", or its first ten complaints joined.
    static func integrityCheck(_ connection: SQLiteConnection) throws(StoreError) -> String {
        let statement = try SQLiteStatement("PRAGMA integrity_check(10)", name: "integrity check", on: connection)
        var lines: [String] = []
        while try statement.step() { lines.append(statement.text(at: 0)) }
        return lines.isEmpty ? "no answer" : lines.joined(separator: "; ")
    }

    /// A pragma that answers one number.
    static func pragma(_ name: String, on connection: SQLiteConnection) throws(StoreError) -> Int64 {
        let statement = try SQLiteStatement("PRAGMA \(name)", name: name, on: connection)
        guard try statement.step() else { throw StoreError(.failed, "PRAGMA \(name) answered no row") }
        return statement.int64(at: 0)
    }
}
