import Foundation
import StorekeeperCore

/// A KeyValueStore in memory for in-process tests: values with expiry, sets and queues with
/// leases, all by the wall clock like the SQLite adapter. KeyValueStoreTests holds its
/// queues to the conformance suite the real stores pass.
public final class MemoryStore: KeyValueStore, @unchecked Sendable {
    private var values: [String: (bytes: [UInt8], version: Int64, expires: Date?)] = [:]
    private var sets: [String: Set<String>] = [:]
    private var queues: [String: [String: QueueEntry]] = [:]
    private var logs: [String: MemoryLog] = [:]
    /// Orders jobs by when they were enqueued, and dead letters by when they died.
    private var sequence: Int64 = 0
    private let lock = NSLock()

    /// A process killed mid-way: the first write (set, delete, setIfAbsent, compareAndSet) to a
    /// key this matches throws, and so does every write after it, until cleared.
    public var killAtWrite: ((String) -> Bool)?
    private var killed = false

    public init() {}

    private func write(_ key: String) throws(StoreError) {
        let dies = lock.withLock { () -> Bool in
            if killed { return true }
            if killAtWrite?(key) == true { killed = true }
            return killed
        }
        if dies { throw StoreError(.unavailable, "killed before writing \(key)") }
    }

    /// The next process: writes work again.
    public func restart() {
        lock.withLock { killed = false; killAtWrite = nil }
    }

    public var keys: [String] { lock.withLock { values.keys.sorted() + sets.keys.sorted() } }

    /// Every value's bytes, for scans of what is kept.
    public var allValues: [[UInt8]] { lock.withLock { values.values.map(\.bytes) + sets.values.flatMap { $0.map { Array($0.utf8) } } } }

    private func live(_ key: String) -> (bytes: [UInt8], version: Int64, expires: Date?)? {
        guard let entry = values[key] else { return nil }
        if let expires = entry.expires, expires <= Date() { values[key] = nil; return nil }
        return entry
    }

    public func get(_ key: String) throws(StoreError) -> StoredValue? {
        lock.withLock { live(key).map { StoredValue(bytes: $0.bytes, version: $0.version) } }
    }

    public func set(_ key: String, _ value: [UInt8], expiresIn: Duration?) throws(StoreError) {
        try write(key)
        lock.withLock {
            let version = (live(key)?.version ?? 0) + 1
            values[key] = (value, version, expiresIn.map(Self.fromNow))
        }
    }

    public func delete(_ key: String) throws(StoreError) -> Bool {
        try write(key)
        return lock.withLock {
            let existed = live(key) != nil || sets[key] != nil
            values[key] = nil
            sets[key] = nil
            return existed
        }
    }

    public func setIfAbsent(_ key: String, _ value: [UInt8], expiresIn: Duration?) throws(StoreError) -> Bool {
        try write(key)
        return lock.withLock {
            guard live(key) == nil else { return false }
            values[key] = (value, 1, expiresIn.map(Self.fromNow))
            return true
        }
    }

    public func compareAndSet(_ key: String, _ value: [UInt8], expectedVersion: Int64?, expiresIn: Duration?) throws(StoreError) -> Bool {
        try write(key)
        return lock.withLock {
            guard live(key)?.version == expectedVersion else { return false }
            values[key] = (value, (expectedVersion ?? 0) + 1, expiresIn.map(Self.fromNow))
            return true
        }
    }

    public func addToSet(_ key: String, _ member: String) throws(StoreError) -> Bool {
        lock.withLock { sets[key, default: []].insert(member).inserted }
    }

    public func removeFromSet(_ key: String, _ member: String) throws(StoreError) -> Bool {
        lock.withLock {
            let removed = sets[key]?.remove(member) != nil
            if sets[key]?.isEmpty == true { sets[key] = nil }
            return removed
        }
    }

    public func setMembers(_ key: String) throws(StoreError) -> [String] {
        lock.withLock { (sets[key] ?? []).sorted() }
    }

    private struct QueueEntry {
        enum State { case ready(at: Date), leased(until: Date, token: String), dead(order: Int64) }
        var job: QueuedJob
        var order: Int64
        var attempts = 0
        var state: State
        var enqueuedAt = Date()
    }

    private static func fromNow(_ duration: Duration) -> Date {
        let (seconds, attoseconds) = duration.components
        return Date().addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }

    private func nextSequence() -> Int64 {
        sequence += 1
        return sequence
    }

    /// Adds the job unless its id is in the queue in any state; the caller holds the lock.
    private func add(_ job: QueuedJob, to queue: String) -> Bool {
        guard queues[queue]?[job.id] == nil else { return false }
        queues[queue, default: [:]][job.id] = QueueEntry(job: job, order: nextSequence(), state: .ready(at: Date()))
        return true
    }

    public func enqueue(_ job: QueuedJob, on queue: String) throws(StoreError) -> Bool {
        try write(queue)
        return lock.withLock { add(job, to: queue) }
    }

    public func setIfAbsentAndEnqueue(_ key: String, _ value: [UInt8], expiresIn: Duration?, job: QueuedJob, on queue: String) throws(StoreError) -> Bool {
        try write(key)
        return lock.withLock {
            guard live(key) == nil else { return false }
            values[key] = (value, 1, expiresIn.map(Self.fromNow))
            _ = add(job, to: queue)
            return true
        }
    }

    public func claim(from queue: String, lease: Duration) throws(StoreError) -> ClaimedJob? {
        try write(queue)
        return lock.withLock {
            let now = Date()
            var ready: [QueueEntry] = []
            for entry in (queues[queue] ?? [:]).values {
                switch entry.state {
                case .ready(let at) where at <= now: ready.append(entry)
                case .leased(let until, _) where until <= now: ready.append(entry)
                default: break
                }
            }
            ready.sort { ($0.job.priority, $0.order) < ($1.job.priority, $1.order) }
            for var entry in ready {
                if entry.attempts >= entry.job.maxAttempts {
                    entry.state = .dead(order: nextSequence())
                    queues[queue]?[entry.job.id] = entry
                    continue
                }
                entry.attempts += 1
                let token = UUID().uuidString
                entry.state = .leased(until: Self.fromNow(lease), token: token)
                queues[queue]?[entry.job.id] = entry
                return ClaimedJob(queue: queue, job: entry.job, attempt: entry.attempts, leaseToken: token)
            }
            return nil
        }
    }

    /// The entry when `claimed` still holds its lease; the caller holds the lock.
    private func leased(_ claimed: ClaimedJob) -> QueueEntry? {
        guard let entry = queues[claimed.queue]?[claimed.job.id],
              case .leased(_, let token) = entry.state, token == claimed.leaseToken else { return nil }
        return entry
    }

    public func acknowledge(_ job: ClaimedJob) throws(StoreError) -> Bool {
        try write(job.queue)
        return lock.withLock {
            guard leased(job) != nil else { return false }
            queues[job.queue]?[job.job.id] = nil
            return true
        }
    }

    public func release(_ job: ClaimedJob, retryIn: Duration) throws(StoreError) -> Bool {
        try write(job.queue)
        return lock.withLock {
            guard var entry = leased(job) else { return false }
            entry.state = entry.attempts >= entry.job.maxAttempts ? .dead(order: nextSequence()) : .ready(at: Self.fromNow(retryIn))
            queues[job.queue]?[job.job.id] = entry
            return true
        }
    }

    public func pendingCount(in queue: String) throws(StoreError) -> Int {
        lock.withLock {
            (queues[queue] ?? [:]).values.filter { if case .dead = $0.state { false } else { true } }.count
        }
    }

    public func oldestPendingEnqueuedAt(in queue: String) throws(StoreError) -> Int64? {
        lock.withLock {
            (queues[queue] ?? [:]).values.filter { if case .dead = $0.state { false } else { true } }
                .map { Int64(($0.enqueuedAt.timeIntervalSince1970 * 1000).rounded(.down)) }.min()
        }
    }

    public func deadLetters(in queue: String) throws(StoreError) -> [String] {
        lock.withLock {
            (queues[queue] ?? [:]).values
                .compactMap { entry -> (Int64, String)? in if case .dead(let order) = entry.state { (order, entry.job.id) } else { nil } }
                .sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    private struct MemoryLog {
        var entries: [LogEntry] = []
        var last: Int64 = 0
        var ids: [String: Int64] = [:]
        var streams: [String: Int64] = [:]
    }

    public func appendToLog(_ log: String, _ entry: LogAppend) throws(StoreError) -> LogAppendOutcome {
        try write(log)
        return lock.withLock {
            var state = logs[log] ?? MemoryLog()
            if let sequence = state.ids[entry.id] { return .duplicate(sequence: sequence) }
            var version: Int64 = 0
            if let stream = entry.stream {
                let current = state.streams[stream] ?? 0
                guard current == entry.expectedStreamVersion else { return .streamMoved(currentVersion: current) }
                version = current + 1
                state.streams[stream] = version
            }
            state.last += 1
            state.ids[entry.id] = state.last
            state.entries.append(LogEntry(sequence: state.last, id: entry.id, stream: entry.stream, streamVersion: version,
                                          recordedAt: entry.recordedAt, bytes: entry.bytes))
            logs[log] = state
            return .appended(sequence: state.last, streamVersion: version)
        }
    }

    public func logStreamVersion(_ log: String, stream: String) throws(StoreError) -> Int64 {
        lock.withLock { logs[log]?.streams[stream] ?? 0 }
    }

    public func readLog(_ log: String, after: Int64, limit: Int) throws(StoreError) -> [LogEntry] {
        lock.withLock { Array((logs[log]?.entries ?? []).filter { $0.sequence > after }.prefix(max(limit, 0))) }
    }

    public func logSequence(_ log: String, id: String) throws(StoreError) -> Int64? {
        lock.withLock { logs[log]?.ids[id] }
    }

    public func logBounds(_ log: String) throws(StoreError) -> LogBounds {
        lock.withLock { LogBounds(first: logs[log]?.entries.first?.sequence, last: logs[log]?.last ?? 0) }
    }

    public func trimLog(_ log: String, recordedBefore: Int64, limit: Int) throws(StoreError) -> Int {
        try write(log)
        return lock.withLock {
            guard var state = logs[log] else { return 0 }
            var removed = 0
            while removed < limit, let oldest = state.entries.first, oldest.recordedAt < recordedBefore {
                state.entries.removeFirst()
                state.ids[oldest.id] = nil
                removed += 1
            }
            logs[log] = state
            return removed
        }
    }
}

/// The walk and the writes copy-store uses (`StoreContents`), so a real store can be copied
/// into memory and back in process. The walk lists every item in order (values, sets, queues,
/// logs, each by name) and pages by position in that list: a test double, not for large stores.
extension MemoryStore: StoreContents {
    private var nowMilliseconds: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    public func contents(after cursor: String?, limit: Int) throws(StoreError) -> StoreContentsPage {
        let start = cursor.flatMap(Int.init) ?? 0
        let items = lock.withLock { allItems() }
        let end = min(items.count, start + max(limit, 1))
        return StoreContentsPage(items: Array(items[min(start, end)..<end]), next: end < items.count ? String(end) : nil)
    }

    /// Every item, in the walk's order; the caller holds the lock.
    private func allItems() -> [StoreItem] {
        var items: [StoreItem] = []
        for key in values.keys.sorted() {
            guard let value = live(key) else { continue }
            items.append(.value(key: key, bytes: value.bytes, expiresAt: value.expires.map(Self.milliseconds)))
        }
        for key in sets.keys.sorted() {
            let members = (sets[key] ?? []).sorted()
            for start in stride(from: 0, to: members.count, by: 100) {
                items.append(.setMembers(key: key, members: Array(members[start..<min(start + 100, members.count)])))
            }
        }
        for queue in queues.keys.sorted() {
            for entry in (queues[queue] ?? [:]).values.sorted(by: { $0.order < $1.order }) {
                items.append(.job(queue: queue, job: storeJob(entry)))
            }
        }
        for name in logs.keys.sorted() {
            guard let log = logs[name] else { continue }
            items.append(.logBounds(log: name, bounds: LogBounds(first: log.entries.first?.sequence, last: log.last)))
            let streams = log.streams.keys.sorted().map { LogStreamVersion(stream: $0, version: log.streams[$0] ?? 0) }
            for start in stride(from: 0, to: streams.count, by: 100) {
                items.append(.logStreams(log: name, versions: Array(streams[start..<min(start + 100, streams.count)])))
            }
            for start in stride(from: 0, to: log.entries.count, by: 100) {
                items.append(.logEntries(log: name, entries: Array(log.entries[start..<min(start + 100, log.entries.count)])))
            }
        }
        return items
    }

    private func storeJob(_ entry: QueueEntry) -> StoreJob {
        let now = Date()
        let state: StoreJob.State = switch entry.state {
        case .ready(let at): .ready(at: at > now ? Self.milliseconds(at) : nil)
        case .leased(let until, _): .leased(until: Self.milliseconds(until))
        case .dead: .dead
        }
        return StoreJob(job: entry.job, attempts: entry.attempts, state: state, enqueuedAt: Self.milliseconds(entry.enqueuedAt))
    }

    public func expiringValue(_ key: String) throws(StoreError) -> ExpiringValue? {
        lock.withLock { live(key).map { ExpiringValue(bytes: $0.bytes, expiresAt: $0.expires.map(Self.milliseconds)) } }
    }

    public func missingMembers(of key: String, among members: [String]) throws(StoreError) -> [String] {
        lock.withLock { members.filter { !(sets[key]?.contains($0) ?? false) } }
    }

    public func job(_ id: String, in queue: String) throws(StoreError) -> StoreJob? {
        lock.withLock { queues[queue]?[id].map(storeJob) }
    }

    public func putJob(_ job: StoreJob, on queue: String) throws(StoreError) {
        try write(queue)
        lock.withLock {
            let date = { (ms: Int64) in Date(timeIntervalSince1970: Double(ms) / 1000) }
            let state: QueueEntry.State = switch job.state {
            case .ready(let at): .ready(at: at.map(date) ?? Date())
            case .leased(let until): .ready(at: date(until))
            case .dead: .dead(order: nextSequence())
            }
            let order = queues[queue]?[job.job.id]?.order ?? nextSequence()
            queues[queue, default: [:]][job.job.id] = QueueEntry(job: job.job, order: order, attempts: job.attempts, state: state,
                                                                  enqueuedAt: job.enqueuedAt.map(date) ?? Date())
        }
    }

    public func putLogBounds(_ log: String, _ bounds: LogBounds) throws(StoreError) {
        try write(log)
        lock.withLock {
            var state = logs[log] ?? MemoryLog()
            state.last = max(state.last, bounds.last)
            let first = bounds.first ?? bounds.last + 1
            for entry in state.entries where entry.sequence < first { state.ids[entry.id] = nil }
            state.entries.removeAll { $0.sequence < first }
            logs[log] = state
        }
    }

    public func putLogStreams(_ log: String, _ versions: [LogStreamVersion]) throws(StoreError) {
        try write(log)
        lock.withLock {
            var state = logs[log] ?? MemoryLog()
            for version in versions { state.streams[version.stream] = version.version }
            logs[log] = state
        }
    }

    public func putLogEntries(_ log: String, _ entries: [LogEntry]) throws(StoreError) -> Int {
        try write(log)
        return try lock.withLock { () -> Result<Int, StoreError> in
            var state = logs[log] ?? MemoryLog()
            var written = 0
            for entry in entries {
                if let known = state.ids[entry.id] {
                    guard known == entry.sequence else { return .failure(StoreError(.failed, "log \(log) holds \(entry.id) at \(known)")) }
                    continue
                }
                guard !state.entries.contains(where: { $0.sequence == entry.sequence }) else {
                    return .failure(StoreError(.failed, "log \(log) holds another entry at \(entry.sequence)"))
                }
                state.entries.append(entry)
                state.ids[entry.id] = entry.sequence
                state.last = max(state.last, entry.sequence)
                written += 1
            }
            state.entries.sort { $0.sequence < $1.sequence }
            logs[log] = state
            return .success(written)
        }.get()
    }
}
