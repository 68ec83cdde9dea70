/// What a store says about itself, read without writing anything: what `doctor` reports about
/// a deployment's store. Each adapter fills in the facts it has; a fact that does not apply to
/// it (eviction for SQLite, a journal for Redis) or that the server would not tell is nil.
public struct StoreHealth: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case sqlite, redis, memory
    }

    public var kind: Kind
    /// Where, for people: the file, or host:port/db without credentials.
    public var location: String
    /// The layout mark every function reads when it opens the store (`StoreLayout`): a read
    /// that proves the store answers. Nil when the store has none yet (nothing ran against it).
    public var layoutMark: String?
    /// Redis: `maxmemory-policy` as the server says it; anything but `noeviction` can drop keys.
    public var evictionPolicy: String?
    /// Redis: where `evictionPolicy` was read (`CONFIG GET`, or `INFO memory` when a managed
    /// server disables CONFIG).
    public var evictionPolicySource: String?
    /// Redis: the append-only file is on (`aof_enabled`).
    public var appendOnly: Bool?
    /// Redis: `redis_version`.
    public var serverVersion: String?
    /// SQLite: `PRAGMA journal_mode` (the store sets `wal`).
    public var journalMode: String?
    /// SQLite: `PRAGMA quick_check`'s answer, "ok" or its first complaints.
    public var integrity: String?
    /// SQLite: bytes free for an unprivileged writer on the store's file system.
    public var freeBytes: Int64?

    public init(kind: Kind, location: String) {
        self.kind = kind
        self.location = location
    }
}
