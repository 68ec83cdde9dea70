import OpenSSLCrypto
import StorekeeperCore
import Synchronization

/// The key-value store on Redis (or any server speaking its protocol, version 5 or later),
/// for Storekeeper running on several machines. Configure the server with persistence on
/// and eviction off (`maxmemory-policy noeviction`): this is a database, not a cache.
///
/// `STORE_URL`: `redis://[[user]:password@]host[:port][/db]`, e.g. `redis://10.0.0.5:6379/2`
/// or `redis://:secret@redis.internal/0`; a user name logs in as a Redis 6 ACL user. Percent-encode
/// ':', '@' and '/' in a password. A malformed URL is `.invalidConfiguration` (exit 78).
///
/// `rediss://` (same forms) connects with TLS 1.2 or later (`RedisTLSLink`): the server's
/// certificate verified against `tls.caFile` or the system's CAs and against the host (DNS
/// name with SNI, or IP address), and `tls`'s client certificate sent when given. A
/// certificate refused either way, or a port that does not speak TLS, is
/// `.invalidConfiguration`; there is never a fallback to plaintext.
///
/// Every operation is one command or one Lua script, so it is atomic however many processes
/// share the server. Unreachable, timed out (connect and every command are bounded by
/// `timeout`), or lost mid-command is `.unavailable` (exit 75, HTTP 503); the next call on
/// the same store connects afresh. A command that failed is never resent by the adapter: it
/// may have been applied.
///
/// Key layout. Every key written is derived from the caller's key or queue name, and keys
/// one atomic step touches share a Redis Cluster hash tag:
///
/// | key | type | holds |
/// | --- | --- | --- |
/// | `<key>` | hash | `value` (the bytes) and `version` (1 on creation, +1 per write); `PEXPIRE` for `expiresIn`. An expired or deleted key starts again at version 1. |
/// | `<key>` (sets) | set | the members; a key is either a value or a set, never both |
/// | `{q}:jobs` | hash | job id → payload, for every job queued, leased or dead |
/// | `{q}:meta` | hash | job id → "attempts maxAttempts priority order leaseToken" |
/// | `{q}:ready` | sorted set | `order` + id, all scores 0: lowest priority number first, then oldest |
/// | `{q}:waiting` | sorted set | id → the server time (ms) its lease or backoff ends |
/// | `{q}:dead` | sorted set | id → enqueue sequence: dead letters, oldest first |
/// | `{q}:sequence` | string | the enqueue counter behind "oldest" |
/// | `{l}:last` | string | a log's last sequence assigned (INCR; never lowered) |
/// | `{l}:trimmed` | string | the last sequence trimmed: the log keeps exactly trimmed+1 ... last |
/// | `{l}:ids` | hash | entry id → sequence, for the entries kept |
/// | `{l}:streams` | hash | stream → how many entries it ever had (its version) |
/// | `{l}:entries` | hash | sequence (decimal) → the entry's bytes |
/// | `{l}:meta` | hash | sequence → `<streamVersion> <recordedAt> <idLength> <id><stream>` (see RedisScript+Log) |
///
/// A log named `{events}` keeps every key under that hash tag, so an append is one script.
/// A queue named `{q}` (already tagged) uses its name as it is, so `notifications` and
/// `{notifications}` are one queue. `setIfAbsentAndEnqueue` needs its key in the queue's
/// hash slot, e.g. key `{notifications}:n:<uuid>` with queue `{notifications}`; otherwise it
/// throws `.failed` rather than write two slots non-atomically. Lease and backoff times are
/// the Redis server's clock, so every host agrees; lease tokens are 128 random bits in hex.
///
/// A URL naming any node of a Redis Cluster (database 0) works too: `RedisRouter` finds the
/// cluster, sends each command to its slot's primary, follows MOVED and ASK, waits out a
/// failover for `failoverWait`, and waits for a replica after each write. Each of the
/// layout's atomic steps touches keys of one hash tag, so no step crosses slots; customers'
/// keys carry their own ids, so they spread over the slots.
///
/// One connection per server, used under a lock: safe to share between threads, one
/// command at a time.
public final class RedisStore: KeyValueStore, Sendable {
    /// The one server, or the cluster's nodes, and which command goes where.
    private let router: Mutex<RedisRouter>

    /// Connects (and logs in, and selects the database) now, so a wrong URL or password is
    /// reported when the store is built rather than at the first request.
    /// - Parameters:
    ///   - tls: the CA file and client certificate for `rediss://`; refused with `redis://`,
    ///     whose plaintext would ignore them.
    ///   - timeout: the bound on connecting (and the TLS handshake) and on every command.
    ///   - failoverWait: on a Redis Cluster, how long a command not yet sent waits for a
    ///     failover (an unreachable primary, CLUSTERDOWN) before it is `.unavailable`.
    public init(url: String, tls: TLSClientOptions = TLSClientOptions(), timeout: Duration = .seconds(2),
                failoverWait: Duration = .seconds(5)) throws(StoreError) {
        guard timeout > .zero else {
            throw StoreError(.invalidConfiguration, "Redis timeout must be positive")
        }
        let parsed = try RedisURL(parsing: url)
        guard parsed.usesTLS || tls.isDefault else {
            throw StoreError(.invalidConfiguration, "Redis: TLS files are set but the URL is redis:// (plaintext); use rediss://")
        }
        router = Mutex(try RedisRouter(url: parsed, tls: tls, timeout: timeout, failoverWait: failoverWait))
    }

    /// True when `STORE_URL` named a node of a Redis Cluster (see `RedisRouter`).
    public var isCluster: Bool { router.withLock { $0.isCluster } }

    // MARK: Values

    public func get(_ key: String) throws(StoreError) -> StoredValue? {
        let reply = try run(["HMGET", key, "value", "version"], "get")
        guard case .array(let fields) = reply, fields.count == 2 else { throw Self.unexpected(reply, "get") }
        switch (fields[0], fields[1]) {
        case (.null, _):
            return nil
        case (.string(let bytes), .string(let version)):
            guard let number = Int64(String(decoding: version, as: UTF8.self)) else {
                throw StoreError(.failed, "get: the version of '\(key)' is not a number")
            }
            return StoredValue(bytes: bytes, version: number)
        default:
            throw StoreError(.failed, "get: '\(key)' is a hash without a version; it was not written by this adapter")
        }
    }

    public func set(_ key: String, _ value: [UInt8], expiresIn: Duration?) throws(StoreError) {
        _ = try writeValue(key, value, expiresIn: expiresIn, condition: "*", "set")
    }

    @discardableResult
    public func delete(_ key: String) throws(StoreError) -> Bool {
        try Self.flag(run(["DEL", key], "delete"), "delete")
    }

    public func setIfAbsent(_ key: String, _ value: [UInt8], expiresIn: Duration?) throws(StoreError) -> Bool {
        try writeValue(key, value, expiresIn: expiresIn, condition: "", "setIfAbsent")
    }

    public func compareAndSet(_ key: String, _ value: [UInt8], expectedVersion: Int64?, expiresIn: Duration?) throws(StoreError) -> Bool {
        try writeValue(key, value, expiresIn: expiresIn, condition: expectedVersion.map { String($0) } ?? "", "compareAndSet")
    }

    // MARK: Sets

    @discardableResult
    public func addToSet(_ key: String, _ member: String) throws(StoreError) -> Bool {
        try Self.flag(run(["SADD", key, member], "addToSet"), "addToSet")
    }

    @discardableResult
    public func removeFromSet(_ key: String, _ member: String) throws(StoreError) -> Bool {
        try Self.flag(run(["SREM", key, member], "removeFromSet"), "removeFromSet")
    }

    public func setMembers(_ key: String) throws(StoreError) -> [String] {
        let reply = try run(["SMEMBERS", key], "setMembers")
        // Byte order, as SQLite's BINARY collation sorts, so both stores list members alike.
        return try Self.strings(reply, "setMembers").sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    // MARK: - Running commands

    /// Runs one command; an error reply is thrown, classified by its code. On a cluster the
    /// command goes to the primary of its key (`arguments[1]`: every command this adapter
    /// sends names its key first, and a command of several keys names keys of one hash tag),
    /// except those about a server rather than a key, which go to any node.
    func run(_ arguments: [String], _ operation: String) throws(StoreError) -> RedisValue {
        try run(arguments.map { Array($0.utf8) }, operation)
    }

    func run(_ arguments: [[UInt8]], _ operation: String) throws(StoreError) -> RedisValue {
        let name = arguments.first.map { String(decoding: $0, as: UTF8.self).uppercased() } ?? ""
        let key = Self.keyless.contains(name) || arguments.count < 2 ? nil : String(decoding: arguments[1], as: UTF8.self)
        let reply = try send(arguments, key: key, writes: Self.writing.contains(name))
        if case .error(let message) = reply {
            throw StoreError.fromServer(message, code: reply.errorCode ?? "", during: operation)
        }
        return reply
    }

    /// Runs a script by its SHA-1, sending its text only when the server does not have it
    /// (first use after a restart or SCRIPT FLUSH). On a cluster it runs on the primary of
    /// its first key; all its keys share that key's hash tag.
    func evaluate(_ script: RedisScript, keys: [String], arguments: [[UInt8]]) throws(StoreError) -> RedisValue {
        let tail = [Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) } + arguments
        var reply = try send([Array("EVALSHA".utf8), Array(script.sha1.utf8)] + tail, key: keys.first, writes: script.writes)
        if reply.errorCode == "NOSCRIPT" {
            reply = try send([Array("EVAL".utf8), Array(script.source.utf8)] + tail, key: keys.first, writes: script.writes)
        }
        if case .error(let message) = reply {
            throw StoreError.fromServer(message, code: reply.errorCode ?? "", during: script.name)
        }
        return reply
    }

    /// Runs a command that is about a server, not a key (INFO, CONFIG GET), on the one
    /// server or on every primary of a cluster; error replies are thrown.
    func runOnEveryPrimary(_ arguments: [String], _ operation: String) throws(StoreError) -> [(node: String, reply: RedisValue)] {
        let replies = try router.withLock { (router: inout RedisRouter) throws(StoreError) -> [(node: String, reply: RedisValue)] in
            try router.sendToEveryPrimary(arguments.map { Array($0.utf8) })
        }
        for (node, reply) in replies {
            if case .error(let message) = reply {
                throw StoreError.fromServer(message, code: reply.errorCode ?? "", during: "\(operation) at \(node)")
            }
        }
        return replies
    }

    /// Runs a command about a server (SCAN) on the `index`th primary of a cluster in slot
    /// order, or on the one server (index 0); nil past the last. Error replies are thrown.
    func runOnPrimary(at index: Int, _ arguments: [String], _ operation: String) throws(StoreError) -> RedisValue? {
        let (reply, _) = try router.withLock { (router: inout RedisRouter) throws(StoreError) -> (reply: RedisValue?, primaries: Int) in
            try router.sendToPrimary(at: index, arguments.map { Array($0.utf8) })
        }
        if let reply, case .error(let message) = reply {
            throw StoreError.fromServer(message, code: reply.errorCode ?? "", during: operation)
        }
        return reply
    }

    /// Commands of this adapter that change data: on a cluster they wait for a replica.
    private static let writing: Set<String> = ["DEL", "SADD", "SREM", "SET", "HSET", "HDEL", "ZADD", "ZREM", "PEXPIRE",
                                               "PEXPIREAT", "PERSIST", "INCR", "INCRBY", "RPUSH", "LPUSH"]
    /// Commands about a server rather than a key.
    private static let keyless: Set<String> = ["PING", "INFO", "CONFIG", "CLUSTER", "SCAN", "DBSIZE", "TIME", "WAIT",
                                               "SCRIPT", "FLUSHDB"]

    /// One command through the router (which connects when it must, and on a cluster
    /// finds the node); its reply, an error reply as a value.
    private func send(_ arguments: [[UInt8]], key: String?, writes: Bool) throws(StoreError) -> RedisValue {
        try router.withLock { (router: inout RedisRouter) throws(StoreError) -> RedisValue in
            try router.send(arguments, key: key, writes: writes)
        }
    }

    private func writeValue(_ key: String, _ value: [UInt8], expiresIn: Duration?, condition: String,
                            _ operation: String) throws(StoreError) -> Bool {
        let reply = try evaluate(.writeValue, keys: [key], arguments: [
            value,
            Array((expiresIn.map { String(Self.milliseconds($0, minimum: 1)) } ?? "").utf8),
            Array(condition.utf8),
        ])
        return try Self.flag(reply, operation)
    }

    // MARK: - Decoding replies

    /// An integer reply of 1 or 0.
    static func flag(_ reply: RedisValue, _ operation: String) throws(StoreError) -> Bool {
        guard case .integer(let number) = reply else { throw unexpected(reply, operation) }
        return number != 0
    }

    static func strings(_ reply: RedisValue, _ operation: String) throws(StoreError) -> [String] {
        guard case .array(let elements) = reply else { throw unexpected(reply, operation) }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let bytes) = element else { throw unexpected(reply, operation) }
            strings.append(String(decoding: bytes, as: UTF8.self))
        }
        return strings
    }

    static func unexpected(_ reply: RedisValue, _ operation: String) -> StoreError {
        let shape = switch reply {
        case .string: "a string"
        case .integer: "an integer"
        case .array(let elements): "an array of \(elements.count)"
        case .null: "nil"
        case .status(let status): "status \(status)"
        case .error(let message): "error \(message)"
        }
        return StoreError(.failed, "\(operation): Redis answered \(shape), which breaks the adapter's contract")
    }

    /// Whole milliseconds, rounded up so a short expiry never becomes "no expiry", capped so
    /// the server's now + duration cannot overflow.
    static func milliseconds(_ duration: Duration, minimum: Int64) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let exact = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        let rounded = exact.rounded(.up)
        return Int64(min(max(rounded, Double(minimum)), 1e15))
    }
}
