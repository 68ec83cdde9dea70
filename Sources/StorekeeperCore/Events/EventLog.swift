/// The global event log, in the store (`KeyValueStore.appendToLog` under `StoreKeys.eventLog`):
/// every event once, in `sequence` order, kept for the retention time. The relay writes it;
/// deliver-events, replay-events, list-events and export-data read it.
public struct EventLog {
    /// How long events are kept unless `STOREKEEPER_EVENT_RETENTION_DAYS` says otherwise.
    public static let defaultRetentionDays = 90
    /// Entries removed per trimming call: a pass trims in steps, never all at once.
    static let trimBatch = 1_000

    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    /// Events after `sequence`, oldest first, at most `limit`, each with its sequence.
    /// An entry that does not decode is a store failure of that entry, never skipped silently.
    public func events(after sequence: Int64, limit: Int) throws -> [Event] {
        try store.readLog(StoreKeys.eventLog, after: sequence, limit: limit).map(Self.event(of:))
    }

    /// Which sequences the log holds.
    public func bounds() throws(StoreError) -> LogBounds {
        try store.logBounds(StoreKeys.eventLog)
    }

    /// The event with this id, when it is in the log.
    public func sequence(of eventId: String) throws(StoreError) -> Int64? {
        try store.logSequence(StoreKeys.eventLog, id: eventId)
    }

    /// The customer's version so far (0: no event of theirs yet).
    public func version(ofCustomer customerId: String) throws(StoreError) -> Int64 {
        try store.logStreamVersion(StoreKeys.eventLog, stream: customerId)
    }

    /// Appends a complete event (its `customer` carrying version `expectedVersion + 1`, or
    /// none). The event's own `sequence` is ignored: the log assigns it.
    func append(_ event: Event, expectedVersion: Int64) throws -> LogAppendOutcome {
        var stored = event
        stored.sequence = 0
        return try store.appendToLog(StoreKeys.eventLog, LogAppend(
            id: event.id, stream: event.carriesCustomer ? event.customerId : nil, expectedStreamVersion: expectedVersion,
            recordedAt: event.recordedAt, bytes: try stored.encoded()))
    }

    /// Forgets events recorded more than `days` before `now` (milliseconds); how many went.
    @discardableResult
    public func trim(olderThanDays days: Int, now: Int64) throws(StoreError) -> Int {
        let cutoff = now - Int64(days) * 86_400_000
        var removed = 0
        while true {
            let step = try store.trimLog(StoreKeys.eventLog, recordedBefore: cutoff, limit: Self.trimBatch)
            removed += step
            if step < Self.trimBatch { return removed }
        }
    }

    static func event(of entry: LogEntry) throws -> Event {
        var event: Event
        do {
            event = try Event.decoded(entry.bytes)
        } catch {
            throw StoreError(.failed, "event \(entry.sequence) of the log does not decode")
        }
        event.sequence = entry.sequence
        return event
    }
}
