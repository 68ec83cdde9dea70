import FoundationEssentials
import StorekeeperCore

/// Where a walk of a Redis database stands (`StoreContents.contents`): the SCAN cursor of the
/// batch being walked, the key of that batch in progress (a batch is walked in byte order, so
/// the keys before it are done), and how far into that key (its part and a cursor inside it).
/// SCAN's cursor is stateless on the server: a later process hands it back and SCAN goes on,
/// returning every key that stayed the whole time at least once (a key twice is harmless:
/// every write of the copy is idempotent).
struct RedisWalk: Codable, Equatable {
    /// On a Redis Cluster, which primary is being scanned, by slot order (each primary's
    /// SCAN sees only its own keys); nil is the first, and the one server of a single Redis.
    var node: Int?
    var scan = "0"
    /// The key in progress; nil: the batch of `scan` from its first key.
    var key: String?
    /// A queue: 0 pending (ready and waiting, in claim order), 1 dead. A log: 0 bounds, 1
    /// streams, 2 entries. A set: 0.
    var part = 0
    /// Inside the part: an SSCAN or HSCAN cursor, the last job's order and id, an offset, a
    /// sequence; "" at its start.
    var sub = ""

    /// Keys per SCAN, members per SSCAN, jobs and entries per item.
    static let batch = 100

    init() {}

    init(_ cursor: String?) throws(StoreError) {
        guard let cursor else { self.init(); return }
        guard let walk = try? JSONDecoder().decode(RedisWalk.self, from: Data(cursor.utf8)) else {
            throw StoreError(.failed, "the copy's cursor was not made by the Redis store")
        }
        self = walk
    }

    var encoded: String {
        (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// In `key`, from `part` and `sub`.
    func at(_ key: String, part: Int, sub: String) -> RedisWalk {
        var walk = self
        walk.key = key
        walk.part = part
        walk.sub = sub
        return walk
    }
}

/// What a key of the database is to the walk: Storekeeper's own layout, read back as the
/// logical items the adapter wrote (see the layout table in `RedisStore`).
enum RedisKeyRole: Equatable {
    case value(bytes: [UInt8], timeToLive: Int64)
    case set
    /// `{q}:sequence`: the queue `q` (its name as Redis keeps it, hash tag included).
    case queue(String)
    /// `{l}:last`: the log `l`.
    case log(String)
    /// Another key of a queue or a log, walked with its anchor.
    case part
    /// Gone since SCAN named it.
    case gone

    static let queueParts = [":jobs", ":meta", ":ready", ":waiting", ":dead", ":enqueued"]
    static let logParts = [":ids", ":streams", ":trimmed", ":entries", ":meta"]

    /// The name before `suffix` when it carries a hash tag, as every queue and log key does.
    static func base(of key: String, _ suffix: String) -> String? {
        guard key.hasSuffix(suffix) else { return nil }
        let base = String(key.dropLast(suffix.count))
        return QueueKeys.hashTag(of: base) == nil ? nil : base
    }
}
