/// Typed records on top of the byte-level port: every repository reads, writes and updates
/// its records through these, so each record's spelling (`StoreRecord`) and the
/// read-modify-write loop live in one place.
extension KeyValueStore {
    /// The record at `key`, or nil when absent or expired. A record that does not decode is a
    /// store failure of that record (`.failed`), never a crash.
    public func get<Record: StoreRecord>(_ key: String, as type: Record.Type) throws(StoreError) -> Record? {
        guard let stored = try get(key) else { return nil }
        return try Self.decode(type, stored.bytes, key: key)
    }

    /// Writes `record` at `key`, replacing any previous one.
    public func set(_ key: String, record: some StoreRecord, expiresIn: Duration?) throws(StoreError) {
        try set(key, try record.storeBytes(), expiresIn: expiresIn)
    }

    /// Read-modify-write without lost updates: reads the record at `key` (nil when absent),
    /// lets `decide` choose, and writes its choice by compare-and-set on the version read. When
    /// another writer got there first, reads again and decides again, up to `attempts` rounds;
    /// `decide` may therefore run more than once and must not have effects it cannot repeat.
    ///
    /// - Parameters:
    ///   - unreadable: what a stored value that does not decode is: a failure (the default),
    ///     or no record at all (state that is safe to start over, such as a rate bucket).
    ///   - contended: the answer when every round lost to another writer; nil throws
    ///     `.unavailable` (retryable) instead.
    public func update<Record: StoreRecord, Result>(
        _ key: String, as type: Record.Type, expiresIn: Duration? = nil, attempts: Int,
        unreadable: UnreadableRecord = .failure, contended: (() -> Result)? = nil,
        _ decide: (Record?) throws(StoreError) -> StoreUpdate<Record, Result>
    ) throws(StoreError) -> Result {
        for _ in 0..<max(attempts, 1) {
            let stored = try get(key)
            let current: Record?
            switch (stored, unreadable) {
            case (nil, _): current = nil
            case (let stored?, .failure): current = try Self.decode(type, stored.bytes, key: key)
            case (let stored?, .absent): current = try? Record(storeBytes: stored.bytes)
            }
            switch try decide(current) {
            case .keep(let result):
                return result
            case .write(let record, let result):
                if try compareAndSet(key, try record.storeBytes(), expectedVersion: stored?.version, expiresIn: expiresIn) {
                    return result
                }
            }
        }
        if let contended { return contended() }
        throw StoreError(.unavailable, "too much contention on \(key)")
    }

    private static func decode<Record: StoreRecord>(_ type: Record.Type, _ bytes: [UInt8], key: String) throws(StoreError) -> Record {
        do {
            return try Record(storeBytes: bytes)
        } catch {
            throw StoreError(.failed, "the record at \(key) does not decode: \(error.reason)")
        }
    }
}

/// How `KeyValueStore.update` treats a stored value that does not decode.
public enum UnreadableRecord: Sendable {
    /// A store failure of that record (`.failed`).
    case failure
    /// As if the key were absent: the next write replaces it.
    case absent
}
