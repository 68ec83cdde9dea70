/// The customer records (`CustomerRecord`, at `StoreKeys.customer`): grants and the audit
/// timeline of each user. Every write is a compare-and-set on the record's version, so two
/// support operations on one customer at once never lose one of them.
public struct CustomerRepository {
    /// Attempts before contention is reported as a (retryable) store failure.
    static let compareAndSetAttempts = 32

    private let store: any KeyValueStore
    /// When given, the events of each write are relayed into the log at once.
    private let events: EventRecording?

    public init(store: any KeyValueStore, events: EventRecording? = nil) {
        self.store = store
        self.events = events
    }

    /// The user's record; nil when support never did anything to the user.
    public func record(ofUser userId: String) throws -> CustomerRecord? {
        try store.get(StoreKeys.customer(userId), as: CustomerRecord.self)
    }

    /// Read-modify-write of the user's record (a fresh one when there is none): `change` may
    /// run more than once (when another writer got there first) and must only change the
    /// record it is given. Nothing is written when the record comes back unchanged; an error
    /// `change` throws writes nothing and is rethrown.
    @discardableResult
    public func update<Value>(userId: String, _ change: (inout CustomerRecord) throws -> Value) throws -> Value {
        let key = StoreKeys.customer(userId)
        var markers: [EventOutbox.Marker] = []
        let outcome = try store.update(key, as: CustomerRecord.self,
                                       attempts: Self.compareAndSetAttempts) { (current) throws(StoreError) in
            var record = current ?? CustomerRecord(userId: userId)
            let value: Value
            do {
                value = try change(&record)
            } catch {
                return .keep(Result<Value, any Error>.failure(error))
            }
            guard record != current else { return .keep(.success(value)) }
            markers = try EventOutbox.markNew(in: &record.outbox, since: current?.outbox, key: key, kind: .customer, store: store)
            return .write(record, .success(value))
        }
        let value = try outcome.get()
        events?.relay(markers, store: store)
        return value
    }
}
