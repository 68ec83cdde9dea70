import FoundationEssentials
import StorekeeperCore

/// The embedded key-value store: one SQLite database file shared by every process on the
/// machine (`STORE_URL=sqlite:var/storekeeper.db`, the default). For several machines, use
/// the Redis store.
///
/// Safe with many processes at once: every write runs in one `BEGIN IMMEDIATE` transaction,
/// so concurrent writers queue on the database's write lock (up to `busyTimeout`) instead of
/// failing or interleaving; reads see the last committed state without blocking writers (WAL).
/// A lock not obtained within `busyTimeout` throws `.unavailable` (retryable).
///
/// Opening is paid on every request (a process per request), so it does the least it can:
/// open the file, set two connection options, read `PRAGMA user_version`. The schema is
/// created only when that version is behind, and statements are prepared on first use.
///
/// Times (expiries, leases, visibility) are the real wall time (`TimeSource.realNow()`, never
/// pinned) in milliseconds since 1970, so every process on the machine agrees on them.
///
/// Not thread-safe: use one instance per thread (a function uses one per process).
public final class SQLiteStore: KeyValueStore {
    let connection: SQLiteConnection
    let busyTimeout: Duration
    /// Stamps expiries with its real wall time and bounds busy waits on its monotonic clock.
    let time: any TimeSource
    private var statements: [SQLiteQuery: SQLiteStatement] = [:]

    /// Opens the database at `path` (relative to the working directory), creating the file
    /// and its folder when missing. `busyTimeout` bounds how long an operation waits for
    /// another process's write transaction before throwing `.unavailable`.
    public init(path: String, busyTimeout: Duration = .seconds(5), time: any TimeSource = SystemTime()) throws(StoreError) {
        guard !path.isEmpty, !path.utf8.contains(0) else {
            throw StoreError(.invalidConfiguration, "the SQLite store needs a file path")
        }
        let timeout = Duration.milliseconds(SQLiteConnection.clampedMilliseconds(busyTimeout))
        self.busyTimeout = timeout
        self.time = time
        connection = try Self.openCreatingFolder(path, busyTimeout: timeout)
        // In WAL mode a commit is an append to the -wal file; NORMAL skips the fsync of each
        // commit (the WAL is synced at checkpoints). A committed write is in the kernel's page
        // cache, so it survives the crash of any process; only a power cut or kernel crash can
        // lose the last commits, and never corrupts the file. Per connection, so set each open.
        try connection.execute("PRAGMA synchronous = NORMAL", as: "set synchronous")
        let version = try run(.schemaVersion) { (statement) throws(StoreError) -> Int64 in
            // The one read an existing database costs. Retried like BEGIN: it can meet
            // another process switching a brand-new file to WAL.
            try statement.stepRetryingBusy(until: time.monotonic() + busyTimeout, on: time)
            return statement.int64(at: 0)
        }
        if version < SQLiteSchema.version {
            try createSchema()
        } else if version > SQLiteSchema.version {
            throw StoreError(.failed, "\(path) has schema version \(version); this build knows up to \(SQLiteSchema.version)")
        }
    }

    private static func openCreatingFolder(_ path: String, busyTimeout: Duration) throws(StoreError) -> SQLiteConnection {
        // SQLite creates the file but not its folder (var/ on the first run). Made before
        // opening, not after a failed open: when opening read-write fails, SQLite silently
        // retries read-only, and if another process creates the folder and file in between,
        // this connection would come up read-only. An existing folder is no error (several
        // processes may race here).
        if let folder = parentFolder(of: path), !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw StoreError(.unavailable, "cannot create the folder \(folder): \(error)")
            }
        }
        return try SQLiteConnection(path: path, busyTimeout: busyTimeout)
    }

    private static func parentFolder(of path: String) -> String? {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return nil }
        return String(path[..<slash])
    }

    private func createSchema() throws(StoreError) {
        // journal_mode is stored in the file: set once here, every later connection opens in
        // WAL without asking. It cannot change inside a transaction, hence before BEGIN. The
        // switch needs the file to itself and SQLite answers BUSY at once (no busy handler)
        // while other processes are opening it too, so it is retried until the busy timeout.
        let deadline = time.monotonic() + busyTimeout
        try run(.enableWAL) { (statement) throws(StoreError) in
            _ = try statement.stepRetryingBusy(until: deadline, on: time)
        }
        // IF NOT EXISTS: another process may have created the schema since we read the version.
        try immediateTransaction { (_) throws(StoreError) in
            try connection.execute(SQLiteSchema.create, as: "create the schema")
        }
    }

    // MARK: Statements and transactions

    /// Runs `body` with the statement for `query` (prepared on first use), then resets it so
    /// it holds no read snapshot and can be bound again.
    func run<Result>(_ query: SQLiteQuery, _ body: (SQLiteStatement) throws(StoreError) -> Result) throws(StoreError) -> Result {
        let statement: SQLiteStatement
        if let cached = statements[query] {
            statement = cached
        } else {
            statement = try SQLiteStatement(query.rawValue, name: String(describing: query), on: connection)
            statements[query] = statement
        }
        defer { statement.reset() }
        return try body(statement)
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction and commits it, or rolls back on any
    /// error. IMMEDIATE takes the write lock up front, so two writers never both read and
    /// then fail to upgrade (SQLITE_BUSY mid-transaction); they wait for each other instead.
    /// `body` gets the time read after the lock was obtained, so waiting for the lock never
    /// makes an expired key look live.
    func immediateTransaction<Result>(_ body: (_ now: Int64) throws(StoreError) -> Result) throws(StoreError) -> Result {
        let deadline = time.monotonic() + busyTimeout
        try run(.begin) { (statement) throws(StoreError) in
            _ = try statement.stepRetryingBusy(until: deadline, on: time)
        }
        do throws(StoreError) {
            let result = try body(nowMilliseconds)
            try run(.commit) { (statement) throws(StoreError) in _ = try statement.step() }
            return result
        } catch {
            // SQLite may already have rolled back on its own (I/O errors, disk full); a failed
            // rollback adds nothing to the error being reported.
            if !connection.isAutocommit {
                try? run(.rollback) { (statement) throws(StoreError) in _ = try statement.step() }
            }
            throw error
        }
    }

    /// The store's present: the real wall time in milliseconds since 1970.
    var nowMilliseconds: Int64 { time.realNow().millisecondsSince1970 }

    /// `now + duration`, saturating; nil duration means never.
    static func milliseconds(after duration: Duration?, from now: Int64) -> Int64? {
        guard let duration else { return nil }
        return now.saturatingAdding(duration.wholeMilliseconds)
    }
}
