/// A store whose whole logical contents can be walked and written back item by item
/// (`StoreItem`): what `copy-store` moves from one `STORE_URL` to another. The key-value port
/// has no way to list keys or read expiries, on purpose (no function may depend on a walk of
/// the store); this port is for the operator's copy alone. SQLite, Redis and the in-memory
/// test store implement it with one logical model, so any of them copies into any other.
///
/// A walk is a series of bounded pages in a stable order, each naming where the next one
/// starts (`StoreContentsPage.next`, an opaque text the caller may keep anywhere, even in
/// another store, and hand back to a later process). It is not a snapshot: a store written
/// meanwhile may show some changes and miss others, so a live store is copied again until
/// a verification passes. Expired values are never walked.
///
/// The writes make the target hold exactly the item: a job is replaced whole, a log entry is
/// put at its own sequence. Each is idempotent, so a copy killed anywhere and run again
/// duplicates nothing. Values and set members go through the key-value port itself.
public protocol StoreContents: KeyValueStore {
    /// The items after `cursor` (nil: from the start), at most `limit` of them (at least one
    /// when the walk is not over, since no item is split).
    func contents(after cursor: String?, limit: Int) throws(StoreError) -> StoreContentsPage

    /// The value at `key` with its expiry; nil when absent, expired or not a value.
    func expiringValue(_ key: String) throws(StoreError) -> ExpiringValue?

    /// Those of `members` that the set at `key` does not hold, in the order given.
    func missingMembers(of key: String, among members: [String]) throws(StoreError) -> [String]

    /// The job `id` of `queue` in whatever state it is; nil when the queue does not hold it.
    func job(_ id: String, in queue: String) throws(StoreError) -> StoreJob?

    /// Puts `job` in `queue` exactly as given (payload, priority, attempts, state, enqueue
    /// time), replacing a job of that id. A lease is never written: the worker holding one
    /// lives on the other store; `StoreCopier` writes it as a job ready when the lease ends.
    func putJob(_ job: StoreJob, on queue: String) throws(StoreError)

    /// Makes the log's last sequence at least `bounds.last`, and its entries before
    /// `bounds.first` trimmed: sequences are never handed out twice, also after a copy.
    func putLogBounds(_ log: String, _ bounds: LogBounds) throws(StoreError)

    /// Sets each stream's version exactly.
    func putLogStreams(_ log: String, _ versions: [LogStreamVersion]) throws(StoreError)

    /// Puts each entry at its own sequence with its id, stream, stream version, time and
    /// bytes; an entry already there with the same id is left alone. Another entry at the
    /// sequence, or the id at another sequence, is `.failed`: the target's log is another log.
    /// Answers how many entries it wrote (the others were there).
    @discardableResult
    func putLogEntries(_ log: String, _ entries: [LogEntry]) throws(StoreError) -> Int
}
