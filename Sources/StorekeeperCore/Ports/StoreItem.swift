/// One piece of a store's logical contents, as `StoreContents` walks it and `StoreCopier`
/// writes it: the same model for every adapter (SQLite, Redis, memory), so any of them can be
/// copied into any other. Queues and logs are logical here, never an adapter's raw rows or
/// Redis keys: that is what lets a Redis queue become SQLite rows and back.
///
/// Times are milliseconds since 1970 by the wall clock (for Redis, the server's clock for job
/// times and the server's remaining time to live for expiries, made absolute on reading).
public enum StoreItem: Sendable, Equatable {
    /// A value; nil `expiresAt` keeps it until deleted. Its version is not part of it: a
    /// version is one store's concurrency token, which every compare-and-set reads afresh.
    case value(key: String, bytes: [UInt8], expiresAt: Int64?)
    /// Some members of a set: a large set comes as several items, each bounded.
    case setMembers(key: String, members: [String])
    /// One job of a queue, in any state.
    case job(queue: String, job: StoreJob)
    /// A log's bounds (`first` kept, `last` assigned): walked before its entries, so the
    /// target knows every sequence it will hold, and trimmed ones stay trimmed.
    case logBounds(log: String, bounds: LogBounds)
    /// Some of a log's stream versions (how many entries each stream ever had).
    case logStreams(log: String, versions: [LogStreamVersion])
    /// Consecutive entries of a log, sequences as they are: readers hold cursors by sequence.
    case logEntries(log: String, entries: [LogEntry])

    /// What the item is about: a key, a queue's job, a log. For the verification's report.
    public var name: String {
        switch self {
        case .value(let key, _, _), .setMembers(let key, _): key
        case .job(let queue, let job): "queue \(queue) job \(job.job.id)"
        case .logBounds(let log, _): "log \(log) bounds"
        case .logStreams(let log, _): "log \(log) streams"
        case .logEntries(let log, let entries): "log \(log) entries \(entries.first?.sequence ?? 0)-\(entries.last?.sequence ?? 0)"
        }
    }
}

/// A stream of a log and its version (`KeyValueStore.logStreamVersion`).
public struct LogStreamVersion: Sendable, Equatable {
    public var stream: String
    public var version: Int64

    public init(stream: String, version: Int64) {
        self.stream = stream
        self.version = version
    }
}

/// A queued job with everything its queue knows about it.
public struct StoreJob: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        /// Claimable from `at` (a release's backoff still running), or now when nil.
        case ready(at: Int64?)
        /// Claimed, hidden from other workers until `until`.
        case leased(until: Int64)
        /// Out of attempts: in the dead letters, its id still taken.
        case dead
    }

    public var job: QueuedJob
    /// Claims so far.
    public var attempts: Int
    public var state: State
    /// When it was enqueued, by the store's clock; nil where the store no longer knows (a
    /// Redis dead letter, or a job of a build before the enqueue times were kept).
    public var enqueuedAt: Int64?

    public init(job: QueuedJob, attempts: Int, state: State, enqueuedAt: Int64?) {
        self.job = job
        self.attempts = attempts
        self.state = state
        self.enqueuedAt = enqueuedAt
    }

    /// When a worker could next claim it (nil: now; never for a dead letter). A leased job is
    /// claimable when its lease ends, which is why a lease is copied as a readiness at that time.
    public var claimableAt: Int64? {
        switch state {
        case .ready(let at): at
        case .leased(let until): until
        case .dead: nil
        }
    }
}

/// One bounded page of a walk: the items, then where the walk goes on (nil: it is over).
public struct StoreContentsPage: Sendable, Equatable {
    public var items: [StoreItem]
    public var next: String?

    public init(items: [StoreItem], next: String?) {
        self.items = items
        self.next = next
    }
}

/// A value and when it expires, as `StoreContents.expiringValue` reads it.
public struct ExpiringValue: Sendable, Equatable {
    public var bytes: [UInt8]
    public var expiresAt: Int64?

    public init(bytes: [UInt8], expiresAt: Int64?) {
        self.bytes = bytes
        self.expiresAt = expiresAt
    }
}
