internal import CSQLite
import StorekeeperCore

/// Owns one `sqlite3_backup` (an online copy of one connection's database into another's) and
/// finishes it in `deinit` when `finish()` was not reached. Holds both connections, so neither
/// closes under it. SQLite reports a backup's errors on the destination connection.
final class SQLiteBackup {
    private let handle: OpaquePointer
    private let source: SQLiteConnection
    private let destination: SQLiteConnection
    private var finished = false

    init(from source: SQLiteConnection, into destination: SQLiteConnection) throws(StoreError) {
        guard let handle = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
            try destination.check(sqlite3_errcode(destination.handle), "sqlite3_backup_init")
            throw StoreError(.failed, "sqlite3_backup_init: no backup and no error")
        }
        self.handle = handle
        self.source = source
        self.destination = destination
    }

    deinit {
        if !finished { sqlite3_backup_finish(handle) }
    }

    /// Copies every page in one step, so in one read transaction of the source: the copy is the
    /// database as of one commit, while other processes go on writing (a WAL reader blocks no
    /// writer). Copying a few pages a step would let any write in between restart the copy
    /// from its first page, and on a busy store it would never end. A lock the step cannot
    /// take (BUSY, LOCKED: a WAL recovery, another writer on the destination) is tried again
    /// until `deadline`. Answers the pages copied.
    func copyAll(until deadline: Duration, on time: any TimeSource) throws(StoreError) -> Int64 {
        while true {
            let code = sqlite3_backup_step(handle, -1)
            if code == SQLITE_DONE { break }
            let primary = code & 0xFF
            if primary == SQLITE_BUSY || primary == SQLITE_LOCKED, time.monotonic() < deadline {
                time.sleep(for: .milliseconds(5))
                continue
            }
            // finish puts the step's error and its message on the destination connection.
            finished = true
            sqlite3_backup_finish(handle)
            try SQLiteConnection.check(code == SQLITE_OK ? SQLITE_ERROR : code, destination.handle, "sqlite3_backup_step")
        }
        let pages = Int64(sqlite3_backup_pagecount(handle))
        finished = true
        try destination.check(sqlite3_backup_finish(handle), "sqlite3_backup_finish")
        return pages
    }
}
