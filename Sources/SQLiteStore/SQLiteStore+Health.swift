import FoundationEssentials
import Glibc
import StorekeeperCore

/// `doctor`'s look at the SQLite store. `health(ofFileAt:)` opens the file read-only, so the
/// look never creates the file, its schema or a layout mark (opening the store itself does all
/// three), and never writes a page.
extension SQLiteStore: StoreHealthReporting {
    public func health() throws(StoreError) -> StoreHealth {
        try Self.health(of: connection, now: nowMilliseconds)
    }

    /// The health of the store at `path` through a read-only connection. A missing file is
    /// `.unavailable` with SQLite's own words (nothing has run against that path yet).
    public static func health(ofFileAt path: String, busyTimeout: Duration = .seconds(5),
                              time: any TimeSource = SystemTime()) throws(StoreError) -> StoreHealth {
        guard !path.isEmpty, !path.utf8.contains(0) else {
            throw StoreError(.invalidConfiguration, "the SQLite store needs a file path")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.unavailable, "there is no file \(path): no function has opened this store yet, or STORE_URL names another file")
        }
        let connection = try SQLiteConnection(path: path, busyTimeout: busyTimeout, readOnly: true)
        return try health(of: connection, now: time.realNow().millisecondsSince1970)
    }

    private static func health(of connection: SQLiteConnection, now: Int64) throws(StoreError) -> StoreHealth {
        var health = StoreHealth(kind: .sqlite, location: connection.path)
        // The read every function makes first: the layout mark. A file no function has
        // opened yet has no kv table (schema version 0), which is no error here.
        if try pragma("user_version", on: connection) > 0 {
            let mark = try SQLiteStatement(SQLiteQuery.get.rawValue, name: "read the layout mark", on: connection)
            try mark.bind(StoreKeys.layoutVersion, at: 1)
            try mark.bind(now, at: 2)
            if try mark.step() { health.layoutMark = String(decoding: mark.bytes(at: 0), as: UTF8.self) }
        }
        health.journalMode = try text("PRAGMA journal_mode", on: connection)
        // quick_check, not integrity_check: it skips the index-content comparison, so a doctor
        // run on a large store stays seconds rather than minutes, and still finds damaged pages.
        let check = try SQLiteStatement("PRAGMA quick_check(10)", name: "quick check", on: connection)
        var complaints: [String] = []
        while try check.step() { complaints.append(check.text(at: 0)) }
        health.integrity = complaints.isEmpty ? "no answer" : complaints.joined(separator: "; ")
        health.freeBytes = freeBytes(besides: connection.path)
        return health
    }

    private static func text(_ sql: String, on connection: SQLiteConnection) throws(StoreError) -> String {
        let statement = try SQLiteStatement(sql, name: sql, on: connection)
        guard try statement.step() else { throw StoreError(.failed, "\(sql) answered no row") }
        return statement.text(at: 0)
    }

    /// Free bytes an unprivileged writer may use on the file system holding `path`; nil when
    /// statvfs cannot tell.
    private static func freeBytes(besides path: String) -> Int64? {
        let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        var status = statvfs()
        guard statvfs(folder, &status) == 0 else { return nil }
        return Int64(status.f_bavail) * Int64(status.f_frsize)
    }
}
