/// A key-value store that opens itself on first use: what a one-request process hands to
/// every part that may need the store (a cache read before anything else, a repository), so
/// a request that never touches it never pays to open it, and the process opens it once.
///
/// Opening is the first operation's business: a store that cannot be opened fails that
/// operation with the opener's `StoreError`, exactly as a store that stopped answering
/// would, and the next operation tries to open it again. A caller that treats a store
/// failure as a cache miss therefore treats a store that will not open the same way.
public final class SelfOpeningStore: KeyValueStore {
    private let open: () throws(StoreError) -> any KeyValueStore
    private var openedStore: (any KeyValueStore)?

    public init(opening open: @escaping () throws(StoreError) -> any KeyValueStore) {
        self.open = open
    }

    /// The store, opened now if it is not yet.
    public func opened() throws(StoreError) -> any KeyValueStore {
        if let openedStore { return openedStore }
        let store = try open()
        openedStore = store
        return store
    }

    /// True once an operation (or `opened()`) has opened the store.
    public var isOpen: Bool { openedStore != nil }

    public func get(_ key: String) throws(StoreError) -> StoredValue? {
        try opened().get(key)
    }

    public func set(_ key: String, _ value: [UInt8], expiresIn: Duration?) throws(StoreError) {
        try opened().set(key, value, expiresIn: expiresIn)
    }

    public func delete(_ key: String) throws(StoreError) -> Bool {
        try opened().delete(key)
    }

    public func setIfAbsent(_ key: String, _ value: [UInt8], expiresIn: Duration?) throws(StoreError) -> Bool {
        try opened().setIfAbsent(key, value, expiresIn: expiresIn)
    }

    public func compareAndSet(_ key: String, _ value: [UInt8], expectedVersion: Int64?, expiresIn: Duration?) throws(StoreError) -> Bool {
        try opened().compareAndSet(key, value, expectedVersion: expectedVersion, expiresIn: expiresIn)
    }

    public func addToSet(_ key: String, _ member: String) throws(StoreError) -> Bool {
        try opened().addToSet(key, member)
    }

    public func removeFromSet(_ key: String, _ member: String) throws(StoreError) -> Bool {
        try opened().removeFromSet(key, member)
    }

    public func setMembers(_ key: String) throws(StoreError) -> [String] {
        try opened().setMembers(key)
    }

    public func enqueue(_ job: QueuedJob, on queue: String) throws(StoreError) -> Bool {
        try opened().enqueue(job, on: queue)
    }

    public func setIfAbsentAndEnqueue(_ key: String, _ value: [UInt8], expiresIn: Duration?, job: QueuedJob, on queue: String) throws(StoreError) -> Bool {
        try opened().setIfAbsentAndEnqueue(key, value, expiresIn: expiresIn, job: job, on: queue)
    }

    public func claim(from queue: String, lease: Duration) throws(StoreError) -> ClaimedJob? {
        try opened().claim(from: queue, lease: lease)
    }

    public func acknowledge(_ job: ClaimedJob) throws(StoreError) -> Bool {
        try opened().acknowledge(job)
    }

    public func release(_ job: ClaimedJob, retryIn: Duration) throws(StoreError) -> Bool {
        try opened().release(job, retryIn: retryIn)
    }

    public func pendingCount(in queue: String) throws(StoreError) -> Int {
        try opened().pendingCount(in: queue)
    }

    public func oldestPendingEnqueuedAt(in queue: String) throws(StoreError) -> Int64? {
        try opened().oldestPendingEnqueuedAt(in: queue)
    }

    public func deadLetters(in queue: String) throws(StoreError) -> [String] {
        try opened().deadLetters(in: queue)
    }

    public func appendToLog(_ log: String, _ entry: LogAppend) throws(StoreError) -> LogAppendOutcome {
        try opened().appendToLog(log, entry)
    }

    public func logStreamVersion(_ log: String, stream: String) throws(StoreError) -> Int64 {
        try opened().logStreamVersion(log, stream: stream)
    }

    public func readLog(_ log: String, after: Int64, limit: Int) throws(StoreError) -> [LogEntry] {
        try opened().readLog(log, after: after, limit: limit)
    }

    public func logSequence(_ log: String, id: String) throws(StoreError) -> Int64? {
        try opened().logSequence(log, id: id)
    }

    public func logBounds(_ log: String) throws(StoreError) -> LogBounds {
        try opened().logBounds(log)
    }

    public func trimLog(_ log: String, recordedBefore: Int64, limit: Int) throws(StoreError) -> Int {
        try opened().trimLog(log, recordedBefore: recordedBefore, limit: limit)
    }
}
