/// Every statement the store runs, prepared on first use and kept for the connection's life.
/// Parameters are numbered (?1, ?2, ...) and documented per case; `now` is always
/// the store's `nowMilliseconds` taken by the caller.
enum SQLiteQuery: String {
    case begin = "BEGIN IMMEDIATE"
    case commit = "COMMIT"
    case rollback = "ROLLBACK"
    case schemaVersion = "PRAGMA user_version"
    /// → the journal mode now in force ("wal", or the old mode where WAL is impossible).
    case enableWAL = "PRAGMA journal_mode = WAL"

    // MARK: Values

    /// ?1 key, ?2 now → value, version.
    case get = """
        SELECT value, version FROM kv WHERE key = ?1 AND (expires_at IS NULL OR expires_at > ?2)
        """
    /// ?1 key, ?2 value, ?3 expires_at.
    case set = """
        INSERT INTO kv (key, value, version, expires_at) VALUES (?1, ?2, 1, ?3)
        ON CONFLICT (key) DO UPDATE
        SET value = excluded.value, version = kv.version + 1, expires_at = excluded.expires_at
        """
    /// ?1 key, ?2 value, ?3 expires_at, ?4 now. Writes one row when absent or expired; an
    /// expired key's version keeps counting up, so a stale version can never match again.
    case setIfAbsent = """
        INSERT INTO kv (key, value, version, expires_at) VALUES (?1, ?2, 1, ?3)
        ON CONFLICT (key) DO UPDATE
        SET value = excluded.value, version = kv.version + 1, expires_at = excluded.expires_at
        WHERE kv.expires_at IS NOT NULL AND kv.expires_at <= ?4
        """
    /// ?1 key, ?2 value, ?3 expires_at, ?4 expected version, ?5 now.
    case compareAndSet = """
        UPDATE kv SET value = ?2, version = version + 1, expires_at = ?3
        WHERE key = ?1 AND version = ?4 AND (expires_at IS NULL OR expires_at > ?5)
        """
    /// ?1 key, ?2 now. Deletes a live key only: an expired one is already absent (and left to
    /// the sweep), so "deleted" means "existed". (Not DELETE ... RETURNING: Debian 12's SQLite
    /// 3.40 answers `expires_at IS NULL` wrongly in a DELETE's RETURNING clause.)
    case delete = "DELETE FROM kv WHERE key = ?1 AND (expires_at IS NULL OR expires_at > ?2)"
    /// ?1 now. A bounded sweep of expired rows, so a write never pays for a large backlog.
    case sweepExpired = """
        DELETE FROM kv WHERE rowid IN (SELECT rowid FROM kv WHERE expires_at <= ?1 LIMIT 256)
        """

    // MARK: Sets

    /// ?1 key, ?2 member.
    case addMember = "INSERT INTO set_members (key, member) VALUES (?1, ?2) ON CONFLICT DO NOTHING"
    /// ?1 key, ?2 member.
    case removeMember = "DELETE FROM set_members WHERE key = ?1 AND member = ?2"
    /// ?1 key → member.
    case members = "SELECT member FROM set_members WHERE key = ?1"

    // MARK: Queues

    /// ?1 queue, ?2 id, ?3 payload, ?4 priority, ?5 now, ?6 max attempts. A known id (ready,
    /// leased or dead) changes nothing.
    case enqueue = """
        INSERT INTO jobs (queue, id, payload, priority, visible_at, attempts, max_attempts, lease_token, state, enqueued_at)
        VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, NULL, 'ready', ?5)
        ON CONFLICT (queue, id) DO NOTHING
        """
    /// ?1 queue, ?2 now → rowid, id, payload, priority, attempts, max_attempts of the most
    /// urgent claimable job: the best ready one and the best whose lease is over, whichever
    /// comes first (lower priority number, then enqueued earlier).
    case nextClaimable = """
        SELECT rid, id, payload, priority, attempts, max_attempts FROM (
            SELECT * FROM (
                SELECT rowid AS rid, id, payload, priority, attempts, max_attempts FROM jobs
                WHERE queue = ?1 AND state = 'ready' AND visible_at <= ?2
                ORDER BY priority, rowid LIMIT 1)
            UNION ALL
            SELECT * FROM (
                SELECT rowid AS rid, id, payload, priority, attempts, max_attempts FROM jobs
                WHERE queue = ?1 AND state = 'leased' AND visible_at <= ?2
                ORDER BY priority, rowid LIMIT 1))
        ORDER BY priority, rid LIMIT 1
        """
    /// ?1 rowid, ?2 lease token, ?3 lease end.
    case lease = """
        UPDATE jobs SET state = 'leased', attempts = attempts + 1, lease_token = ?2, visible_at = ?3
        WHERE rowid = ?1
        """
    /// ?1 rowid, ?2 now.
    case deadLetter = "UPDATE jobs SET state = 'dead', lease_token = NULL, visible_at = ?2 WHERE rowid = ?1"
    /// ?1 queue, ?2 id, ?3 lease token.
    case acknowledge = "DELETE FROM jobs WHERE queue = ?1 AND id = ?2 AND state = 'leased' AND lease_token = ?3"
    /// ?1 queue, ?2 id, ?3 lease token, ?4 now, ?5 visible again at. A job out of attempts
    /// goes to the dead letters instead.
    case release = """
        UPDATE jobs SET lease_token = NULL,
            state = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'ready' END,
            visible_at = CASE WHEN attempts >= max_attempts THEN ?4 ELSE ?5 END
        WHERE queue = ?1 AND id = ?2 AND state = 'leased' AND lease_token = ?3
        """
    /// ?1 queue → count.
    case pendingCount = """
        SELECT (SELECT count(*) FROM jobs WHERE queue = ?1 AND state = 'ready')
             + (SELECT count(*) FROM jobs WHERE queue = ?1 AND state = 'leased')
        """
    /// ?1 queue → the oldest pending job's enqueued_at (NULL when none); reads the head of jobs_pending_age.
    case oldestPendingEnqueuedAt = "SELECT min(enqueued_at) FROM jobs WHERE queue = ?1 AND state <> 'dead'"
    /// ?1 queue → id, in the order they were dead-lettered.
    case deadLetters = "SELECT id FROM jobs WHERE queue = ?1 AND state = 'dead' ORDER BY visible_at, rowid"

    // MARK: Append-only logs

    /// ?1 log, ?2 id → sequence.
    case logSequenceOfId = "SELECT sequence FROM log_entries WHERE log = ?1 AND id = ?2"
    /// ?1 log, ?2 stream → version.
    case logStreamVersion = "SELECT version FROM log_streams WHERE log = ?1 AND stream = ?2"
    /// ?1 log, ?2 stream, ?3 its new version.
    case setLogStreamVersion = """
        INSERT INTO log_streams (log, stream, version) VALUES (?1, ?2, ?3)
        ON CONFLICT (log, stream) DO UPDATE SET version = excluded.version
        """
    /// ?1 log → the sequence just assigned (1 for a new log).
    case nextLogSequence = """
        INSERT INTO log_sequences (log, last_sequence) VALUES (?1, 1)
        ON CONFLICT (log) DO UPDATE SET last_sequence = last_sequence + 1
        RETURNING last_sequence
        """
    /// ?1 log, ?2 sequence, ?3 id, ?4 stream (NULL for none), ?5 stream version, ?6 recorded at, ?7 bytes.
    case insertLogEntry = """
        INSERT INTO log_entries (log, sequence, id, stream, stream_version, recorded_at, bytes)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
        """
    /// ?1 log, ?2 after, ?3 limit (positive) → sequence, id, stream, stream_version, recorded_at, bytes.
    case readLog = """
        SELECT sequence, id, stream, stream_version, recorded_at, bytes FROM log_entries
        WHERE log = ?1 AND sequence > ?2 ORDER BY sequence LIMIT ?3
        """
    /// ?1 log → the first sequence kept (NULL when none), the last assigned (NULL when never).
    case logBounds = """
        SELECT (SELECT sequence FROM log_entries WHERE log = ?1 ORDER BY sequence LIMIT 1),
               (SELECT last_sequence FROM log_sequences WHERE log = ?1)
        """
    /// ?1 log, ?2 limit (positive) → sequence, recorded_at of the oldest entries.
    case oldestLogEntries = """
        SELECT sequence, recorded_at FROM log_entries WHERE log = ?1 ORDER BY sequence LIMIT ?2
        """
    /// ?1 log, ?2 the last sequence to remove.
    case trimLog = "DELETE FROM log_entries WHERE log = ?1 AND sequence <= ?2"

    // MARK: Copies (copy-store: StoreContents)

    /// A deferred transaction: one read snapshot for a page of a walk, no write lock.
    case beginRead = "BEGIN"
    /// ?1 after rowid, ?2 now, ?3 limit → rowid, key, value, expires_at. By rowid: a range of
    /// the table's own b-tree, so a page costs its rows whatever the table's size.
    case walkValues = """
        SELECT rowid, key, value, expires_at FROM kv
        WHERE rowid > ?1 AND (expires_at IS NULL OR expires_at > ?2) ORDER BY rowid LIMIT ?3
        """
    /// ?1 after key, ?2 after member, ?3 limit → key, member (a range of the primary key).
    case walkMembers = """
        SELECT key, member FROM set_members WHERE (key, member) > (?1, ?2) ORDER BY key, member LIMIT ?3
        """
    /// ?1 after rowid, ?2 limit → rowid, queue, id, payload, priority, visible_at, attempts,
    /// max_attempts, state, enqueued_at: in enqueue order, so a copy keeps each queue's order.
    case walkJobs = """
        SELECT rowid, queue, id, payload, priority, visible_at, attempts, max_attempts, state, enqueued_at FROM jobs
        WHERE rowid > ?1 ORDER BY rowid LIMIT ?2
        """
    /// ?1 after log, ?2 limit → log, last sequence, first sequence kept (NULL when none).
    case walkLogs = """
        SELECT log, last_sequence, (SELECT min(sequence) FROM log_entries WHERE log_entries.log = log_sequences.log)
        FROM log_sequences WHERE log > ?1 ORDER BY log LIMIT ?2
        """
    /// ?1 after log, ?2 after stream, ?3 limit → log, stream, version.
    case walkStreams = """
        SELECT log, stream, version FROM log_streams WHERE (log, stream) > (?1, ?2) ORDER BY log, stream LIMIT ?3
        """
    /// ?1 after log, ?2 after sequence, ?3 limit → log, sequence, id, stream, stream_version, recorded_at, bytes.
    case walkEntries = """
        SELECT log, sequence, id, stream, stream_version, recorded_at, bytes FROM log_entries
        WHERE (log, sequence) > (?1, ?2) ORDER BY log, sequence LIMIT ?3
        """
    /// ?1 key, ?2 now → value, expires_at.
    case expiringValue = """
        SELECT value, expires_at FROM kv WHERE key = ?1 AND (expires_at IS NULL OR expires_at > ?2)
        """
    /// ?1 key, ?2 member → a row when the set holds it.
    case isMember = "SELECT 1 FROM set_members WHERE key = ?1 AND member = ?2"
    /// ?1 queue, ?2 id → payload, priority, visible_at, attempts, max_attempts, state, enqueued_at.
    case job = """
        SELECT payload, priority, visible_at, attempts, max_attempts, state, enqueued_at FROM jobs WHERE queue = ?1 AND id = ?2
        """
    /// ?1 queue, ?2 id, ?3 payload, ?4 priority, ?5 visible_at, ?6 attempts, ?7 max_attempts,
    /// ?8 state, ?9 enqueued_at. A job of that id is replaced in place (its rowid, so its
    /// place in line, kept); never with a lease.
    case putJob = """
        INSERT INTO jobs (queue, id, payload, priority, visible_at, attempts, max_attempts, lease_token, state, enqueued_at)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, ?8, ?9)
        ON CONFLICT (queue, id) DO UPDATE SET payload = excluded.payload, priority = excluded.priority,
            visible_at = excluded.visible_at, attempts = excluded.attempts, max_attempts = excluded.max_attempts,
            lease_token = NULL, state = excluded.state, enqueued_at = excluded.enqueued_at
        """
    /// ?1 log, ?2 a sequence the log must have reached (never lowered).
    case raiseLogSequence = """
        INSERT INTO log_sequences (log, last_sequence) VALUES (?1, ?2)
        ON CONFLICT (log) DO UPDATE SET last_sequence = max(last_sequence, excluded.last_sequence)
        """
    /// ?1 log, ?2 the first sequence kept.
    case trimLogBelow = "DELETE FROM log_entries WHERE log = ?1 AND sequence < ?2"
    /// ?1 log, ?2 sequence → id.
    case logEntryIdAt = "SELECT id FROM log_entries WHERE log = ?1 AND sequence = ?2"
}
