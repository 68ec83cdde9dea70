/// The tables and indexes, created in one batch when `PRAGMA user_version` is below
/// `version`, so opening an existing database costs a single pragma read.
///
/// Times are milliseconds since 1970 (the process's wall clock). Expired rows stay until a
/// sweep removes them and are treated as absent by every read.
///
/// Versions: 1, values, sets and queues; 2, the append-only logs (`log_*` tables); 3, the
/// index `jobs_pending_age` (the oldest pending job's age). Every
/// statement says IF NOT EXISTS, so a database at an older version runs the same batch and
/// gains only what it lacks, its rows untouched.
enum SQLiteSchema {
    static let version: Int64 = 3

    /// Run inside one BEGIN IMMEDIATE transaction; bumps user_version last, so a crash mid-way
    /// leaves the version at 0 and the next open creates the rest.
    static let create = """
        -- A rowid table, not WITHOUT ROWID: values (stored notifications) run to several KB.
        CREATE TABLE IF NOT EXISTS kv (
            key TEXT PRIMARY KEY NOT NULL,
            value BLOB NOT NULL,
            version INTEGER NOT NULL,
            expires_at INTEGER
        );
        CREATE INDEX IF NOT EXISTS kv_expiry ON kv (expires_at) WHERE expires_at IS NOT NULL;
        CREATE TABLE IF NOT EXISTS set_members (
            key TEXT NOT NULL,
            member TEXT NOT NULL,
            PRIMARY KEY (key, member)
        ) WITHOUT ROWID;
        -- visible_at: ready, claimable from then (later than now while a release's backoff
        -- runs); leased, the lease's end (claimable again after it); dead, when it was
        -- dead-lettered. Claim order is priority, then rowid: SQLite gives each new row a
        -- larger rowid than any present, so that is enqueue order, immune to clock steps.
        -- enqueued_at is kept for operators.
        CREATE TABLE IF NOT EXISTS jobs (
            queue TEXT NOT NULL,
            id TEXT NOT NULL,
            payload BLOB NOT NULL,
            priority INTEGER NOT NULL,
            visible_at INTEGER NOT NULL,
            attempts INTEGER NOT NULL,
            max_attempts INTEGER NOT NULL,
            lease_token TEXT,
            state TEXT NOT NULL CHECK (state IN ('ready', 'leased', 'dead')),
            enqueued_at INTEGER NOT NULL,
            PRIMARY KEY (queue, id)
        );
        -- Claim reads the head of each of the first two: leased jobs never stand in front of
        -- ready ones, and only leases already over are looked at.
        CREATE INDEX IF NOT EXISTS jobs_ready ON jobs (queue, priority) WHERE state = 'ready';
        CREATE INDEX IF NOT EXISTS jobs_leased ON jobs (queue, visible_at) WHERE state = 'leased';
        CREATE INDEX IF NOT EXISTS jobs_dead ON jobs (queue, visible_at) WHERE state = 'dead';
        -- The oldest pending job's age (metrics) reads the head of this one.
        CREATE INDEX IF NOT EXISTS jobs_pending_age ON jobs (queue, enqueued_at) WHERE state <> 'dead';
        -- Append-only logs. An entry's place is (log, sequence): reading after a sequence is
        -- a range of the primary key. A rowid table: entries (events) run to several KB.
        CREATE TABLE IF NOT EXISTS log_entries (
            log TEXT NOT NULL,
            sequence INTEGER NOT NULL,
            id TEXT NOT NULL,
            stream TEXT,
            stream_version INTEGER NOT NULL,
            recorded_at INTEGER NOT NULL,
            bytes BLOB NOT NULL,
            PRIMARY KEY (log, sequence)
        );
        CREATE UNIQUE INDEX IF NOT EXISTS log_entry_ids ON log_entries (log, id);
        -- How many entries each stream ever had: not lowered by trimming.
        CREATE TABLE IF NOT EXISTS log_streams (
            log TEXT NOT NULL,
            stream TEXT NOT NULL,
            version INTEGER NOT NULL,
            PRIMARY KEY (log, stream)
        ) WITHOUT ROWID;
        -- The last sequence each log assigned, kept apart from the entries so that trimming
        -- them all never hands a sequence out twice.
        CREATE TABLE IF NOT EXISTS log_sequences (
            log TEXT PRIMARY KEY NOT NULL,
            last_sequence INTEGER NOT NULL
        ) WITHOUT ROWID;
        PRAGMA user_version = \(version);
        """
}
