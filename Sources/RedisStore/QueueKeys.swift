import StorekeeperCore

/// The Redis keys of one queue, all sharing one hash tag so a script may touch them together
/// on a cluster. A queue named `q` lives in `{q}:jobs`, `{q}:meta`, `{q}:ready`,
/// `{q}:waiting`, `{q}:dead`, `{q}:sequence` and `{q}:enqueued`; a name that already carries a hash tag
/// (`{notifications}`) is used as it is, so `notifications` and `{notifications}` name the
/// same queue.
struct QueueKeys {
    let jobs: String
    let meta: String
    let ready: String
    let waiting: String
    let dead: String
    let sequence: String
    /// Sorted set id → enqueue time (ms, server clock) of every pending job: the oldest
    /// job's age is its head. Jobs enqueued by builds before it have no entry (see
    /// `RedisScript.oldestPendingEnqueuedAt`).
    let enqueued: String
    /// The bytes Redis Cluster hashes for every key of this queue.
    let slotName: [UInt8]

    init(queue: String) throws(StoreError) {
        let base = Self.hashTag(of: queue) == nil ? "{\(queue)}" : queue
        guard let tag = Self.hashTag(of: base) else {
            throw StoreError(.failed, "queue name '\(queue)' cannot be given a hash tag: it must be non-empty and not start with '}'")
        }
        jobs = base + ":jobs"
        meta = base + ":meta"
        ready = base + ":ready"
        waiting = base + ":waiting"
        dead = base + ":dead"
        sequence = base + ":sequence"
        enqueued = base + ":enqueued"
        slotName = tag
    }

    /// In the order every queue script expects them in KEYS.
    var all: [String] { [jobs, meta, ready, waiting, dead, sequence, enqueued] }

    /// Redis Cluster's rule: the bytes between the first '{' and the first '}' after it, when
    /// there are any; otherwise the whole key is hashed (nil here).
    static func hashTag(of key: String) -> [UInt8]? {
        let bytes = Array(key.utf8)
        guard let open = bytes.firstIndex(of: UInt8(ascii: "{")),
              let close = bytes[(open + 1)...].firstIndex(of: UInt8(ascii: "}")),
              close > open + 1 else { return nil }
        return Array(bytes[(open + 1)..<close])
    }

    /// The bytes Redis Cluster hashes for `key`: its hash tag, or the whole key.
    static func slotName(of key: String) -> [UInt8] {
        hashTag(of: key) ?? Array(key.utf8)
    }
}
