import FoundationEssentials

/// The one shared part of Storekeeper: every piece of state a function keeps outlives the
/// process in a key-value store. The SQLite adapter (one machine, the embedded default) and
/// the Redis adapter (many machines) both implement this protocol, and one conformance
/// suite proves they behave the same.
///
/// Every operation is atomic on its own. Operations that touch several keys at once
/// (`setIfAbsentAndEnqueue`) require those keys to share a Redis Cluster hash tag: see
/// `StoreKeys` for the layout. Times are the store's: expiries and leases are measured by the
/// adapter's clock (the Redis server's, or the SQLite process's wall clock), never by the caller.
///
/// Any failure to reach or use the store throws `StoreError`; an unreachable store is
/// retryable (exit 75, HTTP 503) so that nothing Apple sent is lost.
public protocol KeyValueStore: AnyObject {
    // MARK: Values

    /// The value and its version, or nil when absent or expired.
    func get(_ key: String) throws(StoreError) -> StoredValue?

    /// Writes `value`, replacing any previous one. `expiresIn` nil keeps it until deleted.
    func set(_ key: String, _ value: [UInt8], expiresIn: Duration?) throws(StoreError)

    /// Removes the key; true when it existed.
    @discardableResult
    func delete(_ key: String) throws(StoreError) -> Bool

    /// Writes `value` only when the key is absent (or expired); true when this call wrote it.
    /// The deduplication primitive: of any number of concurrent callers, exactly one wins.
    func setIfAbsent(_ key: String, _ value: [UInt8], expiresIn: Duration?) throws(StoreError) -> Bool

    /// Writes `value` only when the key's current version is `expectedVersion` (nil: the key
    /// must be absent). True when written; false means somebody else wrote first: read again
    /// and retry. Read-modify-write without lost updates.
    func compareAndSet(_ key: String, _ value: [UInt8], expectedVersion: Int64?, expiresIn: Duration?) throws(StoreError) -> Bool

    // MARK: Sets (indexes such as user → original transaction ids)

    /// Adds `member`; true when it was not there yet.
    @discardableResult
    func addToSet(_ key: String, _ member: String) throws(StoreError) -> Bool

    /// Removes `member`; true when it was there.
    @discardableResult
    func removeFromSet(_ key: String, _ member: String) throws(StoreError) -> Bool

    /// Every member, sorted.
    func setMembers(_ key: String) throws(StoreError) -> [String]

    // MARK: Durable queues with leases

    /// Adds `job` to `queue`. A job whose id is already queued (ready, leased or dead) is not
    /// added again; returns false then.
    @discardableResult
    func enqueue(_ job: QueuedJob, on queue: String) throws(StoreError) -> Bool

    /// Stores `value` under `key` only if the key is absent, and in the same atomic step
    /// enqueues `job`: a crash can never leave one without the other. Returns false (and
    /// changes nothing) when the key already existed. `key` and `queue` must share a hash tag.
    func setIfAbsentAndEnqueue(_ key: String, _ value: [UInt8], expiresIn: Duration?, job: QueuedJob, on queue: String) throws(StoreError) -> Bool

    /// Takes the most urgent ready job (lowest priority number first, then oldest) and hides
    /// it from other workers for `lease`. A job not acknowledged before its lease ends becomes
    /// ready again. A job that has already been claimed `maxAttempts` times is moved to the
    /// dead letters instead of being handed out again. Nil when nothing is ready.
    func claim(from queue: String, lease: Duration) throws(StoreError) -> ClaimedJob?

    /// Removes a finished job. False when the lease was lost (it expired and someone else
    /// claimed the job): the caller's work may be applied twice, so work must be idempotent.
    @discardableResult
    func acknowledge(_ job: ClaimedJob) throws(StoreError) -> Bool

    /// Gives a failed job back, ready again after `retryIn` (backoff). After `maxAttempts`
    /// failures it goes to the dead letters. False when the lease was lost.
    @discardableResult
    func release(_ job: ClaimedJob, retryIn: Duration) throws(StoreError) -> Bool

    /// Jobs in `queue`: ready or leased (not dead).
    func pendingCount(in queue: String) throws(StoreError) -> Int

    /// When the oldest job still pending in `queue` (ready, backing off or leased; not dead)
    /// was enqueued, in ms since 1970 by the store's clock. Nil when none is pending.
    func oldestPendingEnqueuedAt(in queue: String) throws(StoreError) -> Int64?

    /// Ids of the dead-lettered jobs of `queue`, oldest first.
    func deadLetters(in queue: String) throws(StoreError) -> [String]

    // MARK: Append-only logs (the event log)
    //
    // A log's keys share one hash tag (the log's name is one, `{events}`): every entry, the
    // id index and the stream versions are written in one atomic step.

    /// Appends `entry` at the log's next sequence, in one atomic step, unless an entry with
    /// its id is in the log already (`.duplicate`: appending twice appends once). With a
    /// stream, only while the stream's version is `entry.expectedStreamVersion` (else
    /// `.streamMoved`, changing nothing), and the stream's version then goes up by one.
    func appendToLog(_ log: String, _ entry: LogAppend) throws(StoreError) -> LogAppendOutcome

    /// How many entries were ever appended for `stream` (0 when none): the version the next
    /// append of the stream expects.
    func logStreamVersion(_ log: String, stream: String) throws(StoreError) -> Int64

    /// The entries whose sequence is greater than `after`, oldest first, at most `limit`.
    func readLog(_ log: String, after: Int64, limit: Int) throws(StoreError) -> [LogEntry]

    /// The sequence of the entry with this id; nil when it is not in the log (never
    /// appended, or trimmed).
    func logSequence(_ log: String, id: String) throws(StoreError) -> Int64?

    func logBounds(_ log: String) throws(StoreError) -> LogBounds

    /// Removes entries from the oldest on while their `recordedAt` is before `recordedBefore`
    /// (milliseconds), at most `limit`; their ids are forgotten. Returns how many went.
    @discardableResult
    func trimLog(_ log: String, recordedBefore: Int64, limit: Int) throws(StoreError) -> Int
}

/// A value read from the store with the version `compareAndSet` expects.
public struct StoredValue: Sendable, Equatable {
    public var bytes: [UInt8]
    /// Increases on every write of the key.
    public var version: Int64

    public init(bytes: [UInt8], version: Int64) {
        self.bytes = bytes
        self.version = version
    }
}

/// A unit of work for a queue.
public struct QueuedJob: Sendable, Equatable {
    /// Unique within its queue (a notification's UUID): enqueuing it twice adds it once.
    public var id: String
    public var payload: [UInt8]
    /// 0 is the most urgent (refunds and revocations); larger numbers wait behind smaller.
    public var priority: Int
    /// How many claims a job gets before it is dead-lettered.
    public var maxAttempts: Int

    public init(id: String, payload: [UInt8], priority: Int = 1, maxAttempts: Int = 8) {
        self.id = id
        self.payload = payload
        self.priority = priority
        self.maxAttempts = maxAttempts
    }
}

/// A job handed to one worker under a lease.
public struct ClaimedJob: Sendable, Equatable {
    public var queue: String
    public var job: QueuedJob
    /// How many times it has been claimed, this claim included.
    public var attempt: Int
    /// Proves this worker still holds the lease when it acknowledges or releases.
    public var leaseToken: String

    public init(queue: String, job: QueuedJob, attempt: Int, leaseToken: String) {
        self.queue = queue
        self.job = job
        self.attempt = attempt
        self.leaseToken = leaseToken
    }
}
