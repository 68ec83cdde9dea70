internal import CSQLite
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import StorekeeperCore

/// Owns one prepared `sqlite3_stmt` and finalizes it in `deinit`. Holds its connection, so the
/// connection cannot close while a statement is alive.
///
/// Reused across calls: bind, step, read columns, then `reset` (the store does that in a
/// `defer`, so a failed call never leaves a statement holding a read snapshot open).
final class SQLiteStatement {
    private let connection: SQLiteConnection
    private let handle: OpaquePointer
    /// What error messages call the statement (the query's name, not its SQL). Made only
    /// when a message is: naming an enum case goes through reflection, which would cost a
    /// fresh process more than opening the database does.
    private let describe: () -> String
    private var name: String { describe() }

    /// Prepared once and kept (SQLITE_PREPARE_PERSISTENT tells SQLite it will be reused).
    init(_ sql: String, name: @escaping @autoclosure () -> String, on connection: SQLiteConnection) throws(StoreError) {
        var prepared: OpaquePointer?
        try connection.check(
            sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil),
            "prepare \(name())")
        guard let prepared else {
            // Only empty SQL (or SQL that is all comments) prepares to NULL: a bug in the caller.
            throw StoreError(.failed, "prepare \(name()): no statement")
        }
        self.connection = connection
        self.handle = prepared
        self.describe = name
    }

    deinit {
        // finalize repeats the last step's result code, which was already checked there.
        sqlite3_finalize(handle)
    }

    // MARK: Binding (1-based indexes, as in the SQL's ?1, ?2, ...)

    func bind(_ value: Int64, at index: Int32) throws(StoreError) {
        try connection.check(sqlite3_bind_int64(handle, index, value), "bind ?\(index) of \(name)")
    }

    /// nil binds SQL NULL.
    func bind(_ value: Int64?, at index: Int32) throws(StoreError) {
        guard let value else {
            try connection.check(sqlite3_bind_null(handle, index), "bind ?\(index) of \(name)")
            return
        }
        try bind(value, at: index)
    }

    /// Binds a copy of the string's UTF-8 (NUL characters included) as TEXT.
    func bind(_ value: String, at index: Int32) throws(StoreError) {
        var text = value
        let code = text.withUTF8 { utf8 -> Int32 in
            // An empty buffer may have no address, and a NULL pointer would bind NULL, not "".
            guard let base = utf8.baseAddress else {
                return "".withCString { shim_sqlite3_bind_text_transient(handle, index, $0, 0) }
            }
            return shim_sqlite3_bind_text_transient(handle, index, base, UInt64(utf8.count))
        }
        try connection.check(code, "bind ?\(index) of \(name)")
    }

    /// Binds a copy of the bytes as a BLOB (an empty array binds an empty BLOB, not NULL).
    func bind(_ value: [UInt8], at index: Int32) throws(StoreError) {
        let code = value.withUnsafeBytes { bytes -> Int32 in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_zeroblob(handle, index, 0)
            }
            return shim_sqlite3_bind_blob_transient(handle, index, base, UInt64(bytes.count))
        }
        try connection.check(code, "bind ?\(index) of \(name)")
    }

    // MARK: Running

    /// Advances one row: true when a row is ready to read, false when the statement is done.
    @discardableResult
    func step() throws(StoreError) -> Bool {
        try connection.check(sqlite3_step(handle), "step \(name)") == SQLITE_ROW
    }

    /// Steps once (BEGIN, a pragma), trying again while SQLite answers BUSY before `deadline`.
    /// The busy timeout already waits inside SQLite; this covers the BUSY answers it gives
    /// without waiting (a journal-mode switch, a WAL recovery in progress), so concurrent
    /// processes queue up instead of failing. True when a row is ready to read.
    @discardableResult
    func stepRetryingBusy(until deadline: Duration, on time: any TimeSource) throws(StoreError) -> Bool {
        var generator = SystemRandomNumberGenerator()
        while true {
            let code = sqlite3_step(handle)
            guard SQLiteConnection.isBusy(code), time.monotonic() < deadline else {
                return try connection.check(code, "step \(name)") == SQLITE_ROW
            }
            // reset repeats the BUSY just seen; clear it and back off 1-4 ms with jitter so
            // the waiting processes do not retry in lockstep.
            sqlite3_reset(handle)
            time.sleep(for: .microseconds(1_000 + Int64(generator.next(upperBound: UInt32(3_000)))))
        }
    }

    /// Makes the statement ready to run again (bindings are kept and rebound by the caller).
    func reset() {
        // reset repeats the last step's result code, which was already checked there.
        sqlite3_reset(handle)
    }

    // MARK: Columns (0-based), valid until the next step or reset

    /// True when the column holds SQL NULL (read it before any conversion of the column).
    func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func bytes(at column: Int32) -> [UInt8] {
        // Pointer first, then length, as SQLite's documentation prescribes. A zero-length
        // BLOB has no pointer.
        guard let base = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    func text(at column: Int32) -> String {
        guard let base = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }
}
