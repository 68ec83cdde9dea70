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

    /// Markers relayed per round of `relayPending`: a bounded batch in memory.
    static let batch = 500

    /// Relays every event still waiting in an outbox; `now` (milliseconds, the function's
    /// clock) dates the customer state attached. Returns how many events it appended.
    @discardableResult
    public func relayPending(now: Int64) throws -> Int {
        var markers: [EventOutbox.Marker] = []
        for member in try store.setMembers(StoreKeys.eventOutboxes) {
            if let marker = EventOutbox.Marker(member: member) {
                markers.append(marker)
            } else {
                try store.removeFromSet(StoreKeys.eventOutboxes, member)
            }
        }
        var appended = 0
        var start = 0
        while start < markers.count {
            appended += try relay(Array(markers[start..<min(start + Self.batch, markers.count)]), now: now)
            start += Self.batch
        }
        return appended
    }

    /// Relays the events the markers name (and those before them in the same outboxes), in
    /// outbox order, reading each customer's state once for the batch.
    @discardableResult
    func relay(_ markers: [EventOutbox.Marker], now: Int64) throws -> Int {
        var due: [Event] = []
        var relayed: [(marker: EventOutbox.Marker, ids: Set<String>)] = []
        var seenKeys: Set<String> = []
        for marker in markers where seenKeys.insert(marker.key).inserted {
            let sameKey = markers.filter { $0.key == marker.key }
            // A writer's own markers carry what it wrote; events a relay took out meanwhile are
            // found in the log below and not appended twice.
            let outbox = try sameKey.compactMap(\.written).last ?? self.outbox(of: marker)
            let positions = sameKey.compactMap { mark in outbox.firstIndex { $0.id == mark.eventId } }
            for orphan in sameKey where !outbox.contains(where: { $0.id == orphan.eventId }) { try settle(orphan) }
            guard let last = positions.max() else { continue }
            // In outbox order: an earlier event of the same record never lands after a later one.
            let events = Array(outbox[...last])
            due += events
            relayed.append((marker, Set(events.map(\.id))))
        }
        let appended = try append(due, now: now)
        for (marker, _) in relayed { try clear(marker) }
        for marker in markers where relayed.contains(where: { $0.ids.contains(marker.eventId) }) {
            try store.removeFromSet(StoreKeys.eventOutboxes, marker.member)
        }
        return appended
    }

    private func outbox(of marker: EventOutbox.Marker) throws -> [Event] {
        switch marker.kind {
        case .entitlement: try store.get(marker.key, as: EntitlementRecord.self)?.outbox ?? []
        case .customer: try store.get(marker.key, as: CustomerRecord.self)?.outbox ?? []
        case .purchase: try store.get(marker.key, as: PurchaseRecord.self)?.outbox ?? []
        case .standalone: try store.get(marker.key, as: StandaloneEvent.self)?.outbox ?? []
        }
    }

    /// A marker whose event is not (or no longer) waiting: in the log already, or a write
    /// that never landed (dropped once no such write can still land).
    private func settle(_ marker: EventOutbox.Marker) throws {
        let inLog = try log.sequence(of: marker.eventId) != nil
        if inLog || Date().millisecondsSince1970 - marker.markedAt > EventOutbox.settle {
            try store.removeFromSet(StoreKeys.eventOutboxes, marker.member)
        }
    }

    /// A relayed standalone event's record goes altogether; the other records keep relayed
    /// events until their next write takes them out (`EventOutbox.markNew`): a write of their
    /// own here would cost a whole record's read, decode, encode and write per event.
    private func clear(_ marker: EventOutbox.Marker) throws {
        if marker.kind == .standalone { try store.delete(marker.key) }
    }

    /// Appends events in order, each with its customer's state: read once per customer (after
    /// the customer's version), read again only when another relay moved that customer on.
    /// Returns how many were not in the log already.
    func append(_ events: [Event], now: Int64) throws -> Int {
        var known: [String: (version: Int64, state: [UInt8])] = [:]
        var appended = 0
        for event in events {
            guard try log.sequence(of: event.id) == nil else { continue }
            guard let customerId = event.customerId else {
                if try log.append(event, expectedVersion: 0).isAppended { appended += 1 }
                continue
            }
            var attempts = 0
            while true {
                attempts += 1
                guard attempts <= Self.appendAttempts else {
                    throw StoreError(.unavailable, "too much contention on the events of one customer")
                }
                let current = try known[customerId] ?? (log.version(ofCustomer: customerId),
                                                         snapshot(of: customerId, app: event.app, now: now))
                var complete = event
                complete.customerJSON = CustomerSnapshot.versioned(current.state, current.version + 1)
                switch try log.append(complete, expectedVersion: current.version) {
                case .appended(_, let version):
                    known[customerId] = (version, current.state)
                    appended += 1
                case .duplicate:
                    break
                case .streamMoved:
                    known[customerId] = nil
                    continue
                }
                break
            }
        }
        return appended
    }

    private func snapshot(of customerId: String, app: String?, now: Int64) throws -> [UInt8] {
        try CustomerSnapshot(store: store, catalog: catalog).state(of: customerId, app: app, now: now)
    }
}

extension LogAppendOutcome {
    var isAppended: Bool {
        if case .appended = self { true } else { false }
    }
}
