import Foundation
import StorekeeperCore

/// A KeyValueStore in memory for pure-logic tests: values with expiry (by the wall clock,
/// like the SQLite adapter) and sets. Queues are not needed by the code under test here.
public final class MemoryStore: KeyValueStore, @unchecked Sendable {
    private var values: [String: (bytes: [UInt8], version: Int64, expires: Date?)] = [:]
    private var sets: [String: Set<String>] = [:]
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
            values[key] = (value, version, expiresIn.map { Date().addingTimeInterval(Double($0.components.seconds)) })
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
            values[key] = (value, 1, expiresIn.map { Date().addingTimeInterval(Double($0.components.seconds)) })
            return true
        }
    }

    public func compareAndSet(_ key: String, _ value: [UInt8], expectedVersion: Int64?, expiresIn: Duration?) throws(StoreError) -> Bool {
        try write(key)
        return lock.withLock {
            guard live(key)?.version == expectedVersion else { return false }
            values[key] = (value, (expectedVersion ?? 0) + 1, expiresIn.map { Date().addingTimeInterval(Double($0.components.seconds)) })
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

    public func enqueue(_ job: QueuedJob, on queue: String) throws(StoreError) -> Bool { throw StoreError(.failed, "no queues here") }
    public func setIfAbsentAndEnqueue(_ key: String, _ value: [UInt8], expiresIn: Duration?, job: QueuedJob, on queue: String) throws(StoreError) -> Bool {
        throw StoreError(.failed, "no queues here")
    }
    public func claim(from queue: String, lease: Duration) throws(StoreError) -> ClaimedJob? { nil }
    public func acknowledge(_ job: ClaimedJob) throws(StoreError) -> Bool { false }
    public func release(_ job: ClaimedJob, retryIn: Duration) throws(StoreError) -> Bool { false }
    public func pendingCount(in queue: String) throws(StoreError) -> Int { 0 }
    public func deadLetters(in queue: String) throws(StoreError) -> [String] { [] }
}
