import FoundationEssentials

/// Moves events from the records' outboxes into the event log: gives each its place
/// (`sequence`, assigned by the log) and its `customer` (the customer's state now, with the next
/// version of that customer). Idempotent by event id, so two relays at once, or a relay killed
/// half-way and run again, append each event once.
///
/// The customer's state is read after the customer's version, and the event appended only
/// while that version still holds (`LogAppend.expectedStreamVersion`): an event with a higher
/// version always carries a state read later, so a receiver that keeps the highest version
/// per customer keeps the newest state.
///
/// Writers relay their own events at once when they can (`EventRecording`); whatever is left
/// (a process killed after its write, a function without the catalog at hand) is relayed by
/// the next `relayPending`, which deliver-events, list-events and export-data run first.
public struct EventRelay {
    /// Rounds against other relays of the same customer before giving up (retryable).
    static let appendAttempts = 32

    private let store: any KeyValueStore
    private let catalog: Catalog
    private let log: EventLog

    public init(store: any KeyValueStore, catalog: Catalog) {
        self.store = store
        self.catalog = catalog
        log = EventLog(store: store)
    }

    /// Relays every event still waiting in an outbox; `now` (milliseconds, the function's
    /// clock) dates the customer state attached. Returns how many events it appended.
    @discardableResult
    public func relayPending(now: Int64) throws -> Int {
        var appended = 0
        for member in try store.setMembers(StoreKeys.eventOutboxes) {
            guard let marker = EventOutbox.Marker(member: member) else {
                try store.removeFromSet(StoreKeys.eventOutboxes, member)
                continue
            }
            appended += try relay(marker, now: now)
        }
        return appended
    }

    /// Relays the event a marker names (and those before it in the same outbox).
    @discardableResult
    func relay(_ marker: EventOutbox.Marker, now: Int64) throws -> Int {
        switch marker.kind {
        case .entitlement: try relay(marker, as: EntitlementRecord.self, now: now)
        case .customer: try relay(marker, as: CustomerRecord.self, now: now)
        case .purchase: try relay(marker, as: PurchaseRecord.self, now: now)
        case .standalone: try relay(marker, as: StandaloneEvent.self, now: now)
        }
    }

    private func relay<Record: EventCarrying>(_ marker: EventOutbox.Marker, as type: Record.Type, now: Int64) throws -> Int {
        let outbox = try store.get(marker.key, as: type)?.outbox ?? []
        guard let position = outbox.firstIndex(where: { $0.id == marker.eventId }) else {
            // Not (or no longer) waiting: in the log already, or a write that never landed.
            let inLog = try log.sequence(of: marker.eventId) != nil
            if inLog || Date().millisecondsSince1970 - marker.markedAt > EventOutbox.settle {
                try store.removeFromSet(StoreKeys.eventOutboxes, marker.member)
            }
            return 0
        }
        // In outbox order: an earlier event of the same record never lands after a later one.
        let due = Array(outbox[...position])
        var appended = 0
        for event in due {
            if try append(event, now: now) { appended += 1 }
        }
        try clear(Set(due.map(\.id)), from: marker.key, as: type)
        try store.removeFromSet(StoreKeys.eventOutboxes, marker.member)
        return appended
    }

    /// Takes relayed events out of their record's outbox (compare-and-set: the record's other
    /// changes meanwhile stay); a standalone event's record goes altogether.
    private func clear<Record: EventCarrying>(_ ids: Set<String>, from key: String, as type: Record.Type) throws {
        if Record.self == StandaloneEvent.self {
            try store.delete(key)
            return
        }
        try store.update(key, as: type, attempts: EntitlementRepository.compareAndSetAttempts) { (current) throws(StoreError) in
            guard var record = current, record.outbox.contains(where: { ids.contains($0.id) }) else { return .keep(()) }
            record.outbox.removeAll { ids.contains($0.id) }
            return .write(record, ())
        }
    }

    /// Appends one event with its customer's state; false when it was in the log already.
    func append(_ event: Event, now: Int64) throws -> Bool {
        for _ in 0..<Self.appendAttempts {
            if try log.sequence(of: event.id) != nil { return false }
            guard let customerId = event.customerId else {
                return try log.append(event, expectedVersion: 0).isAppended
            }
            let version = try log.version(ofCustomer: customerId)
            var complete = event
            complete.customer = try CustomerSnapshot(store: store, catalog: catalog)
                .state(of: customerId, app: event.app, version: version + 1, now: now)
            switch try log.append(complete, expectedVersion: version) {
            case .appended: return true
            case .duplicate: return false
            case .streamMoved: continue
            }
        }
        throw StoreError(.unavailable, "too much contention on the events of one customer")
    }
}

extension LogAppendOutcome {
    var isAppended: Bool {
        if case .appended = self { true } else { false }
    }
}
