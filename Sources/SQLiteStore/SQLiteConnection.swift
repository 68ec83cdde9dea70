internal import CSQLite
import FoundationEssentials
import StorekeeperCore

/// Owns one `sqlite3` connection handle and closes it in `deinit`; the one place an SQLite
/// result code becomes a `StoreError` (`check`).
///
/// Not thread-safe by design (opened with SQLITE_OPEN_NOMUTEX): a store belongs to one
/// request in one process, so SQLite's per-call mutex would be pure overhead.
final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String

    /// Opens the database at `path`, creating the file (not its folder) when missing unless
    /// `mustExist`. `checkpointOnClose`: SQLite's default, for the copies `backup-store` makes
    /// and reads, which must be one self-contained file once closed (see below for the store's).
    /// `readOnly`: the file must exist and is never written (`doctor`'s look at a store).
    init(path: String, busyTimeout: Duration, mustExist: Bool = false, checkpointOnClose: Bool = false,
         readOnly: Bool = false) throws(StoreError) {
        self.path = path
        var opened: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (mustExist ? 0 : SQLITE_OPEN_CREATE)
        let flags = access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        // SQLite hands back a handle even when opening fails (it carries the message), and
        // NULL only when it could not allocate one.
        guard let opened else {
            throw StoreError(.unavailable, "sqlite3_open_v2 \(path): cannot allocate a connection")
        }
        do throws(StoreError) {
            try Self.check(code, opened, "open \(path)")
            try Self.check(sqlite3_busy_timeout(opened, Self.clampedMilliseconds(busyTimeout)), opened, "sqlite3_busy_timeout")
            // A process per request closes its connection after every request; by default the
            // last connection to close checkpoints the WAL (three fsyncs), which would put a
            // disk flush on every webhook answer. Checkpoints still happen automatically as
            // the WAL grows (wal_autocheckpoint), inside some later write.
            try Self.check(shim_sqlite3_db_config_flag(opened, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, checkpointOnClose ? 0 : 1),
                           opened, "no checkpoint on close")
        } catch {
            // The only owner so far: close here, since `deinit` will not run for a failed init.
            sqlite3_close_v2(opened)
            throw error
        }
        handle = opened
    }

    deinit {
        // close_v2 defers the close until every statement is finalized; each SQLiteStatement
        // holds this connection, so by now none is left and the file is closed at once.
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements that take no parameters (schema, pragmas).
    func execute(_ sql: String, as operation: String) throws(StoreError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), operation)
    }

    /// Rows inserted, updated or deleted by the last statement that finished.
    var changes: Int64 { sqlite3_changes64(handle) }

    /// False while a transaction is open.
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Passes success codes through (returning them, so `step` can tell ROW from DONE) and
    /// turns anything else into a `StoreError` with SQLite's own message.
    @discardableResult
    func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(StoreError) -> Int32 {
        try Self.check(code, handle, operation())
    }

    @discardableResult
    static func check(_ code: Int32, _ handle: OpaquePointer?, _ operation: @autoclosure () -> String) throws(StoreError) -> Int32 {
        switch code {
        case SQLITE_OK, SQLITE_ROW, SQLITE_DONE:
            return code
        default:
            // errmsg describes the latest failed call on this connection, which is this one:
            // the connection is used by one thread only.
            let message = sqlite3_errmsg(handle).map { String(cString: $0) } ?? "unknown error"
            throw StoreError(kind(of: code), "\(operation()): \(message) (SQLite result code \(code))")
        }
    }

    /// Classifies by the primary result code (the low byte of an extended code), never by
    /// SQLite's message. No code is the caller's fault: bound values are capped far below
    /// SQLITE_MAX_LENGTH by the request limits (so TOOBIG, like CONSTRAINT, MISMATCH, RANGE
    /// and MISUSE, can only be this adapter's own bug or a file from another program), and
    /// each of those is answered "retry later" too, since nothing the caller sent was wrong.
    static func kind(of code: Int32) -> StoreError.Kind {
        switch code & 0xFF {
        case SQLITE_FULL:
            return .full
        case SQLITE_READONLY, SQLITE_PERM:
            // READONLY: a read-only file or mount (or its -shm / -wal); PERM: the file system
            // refused access. Either way writes stop until an operator changes the mount.
            return .readOnly
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return .corrupt
        case SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_NOMEM, SQLITE_PROTOCOL,
             SQLITE_INTERRUPT, SQLITE_SCHEMA, SQLITE_ABORT:
            // Conditions that go away: another process's transaction ends, the disk or memory
            // comes back, a lock race or a schema change is over.
            return .unavailable
        default:
            // ERROR, INTERNAL, CONSTRAINT, TOOBIG, MISMATCH, MISUSE, RANGE, ...: a statement
            // broke the adapter's contract.
            return .failed
        }
    }

    /// True for SQLITE_BUSY and its extended codes.
    static func isBusy(_ code: Int32) -> Bool { code & 0xFF == SQLITE_BUSY }

    static func clampedMilliseconds(_ duration: Duration) -> Int32 {
        Int32(clamping: max(0, duration.wholeMilliseconds))
    }
}
