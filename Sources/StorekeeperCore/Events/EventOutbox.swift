import FoundationEssentials

/// A record that carries the events of its changes (`outbox`): the event is written by the same
/// compare-and-set as the change, so killed between the two, neither happened. On Redis Cluster
/// that keeps the event in the record's own slot; only the relay touches the log's. An event
/// the relay has put in the log leaves the outbox with the record's next write (`markNew`),
/// not by a write of its own.
protocol EventCarrying: StoreRecord, Equatable {
    var outbox: [Event] { get set }
}

/// Where events wait: which records carry outboxes, and the markers that let the relay find
/// them (`StoreKeys.eventOutboxes`) without walking every record.
///
/// A marker `<ms>|<kind>|<record key>|<event id>` is added before the write that carries the
/// event (inside the compare-and-set's decision, so each attempt marks what it writes) and
/// removed once the event is in the log. A marker whose event is neither in its record nor in
/// the log belongs to a write that lost its race or a process killed before writing: the
/// relay leaves it while such a write could still land (`settle`), then drops it.
enum EventOutbox {
    /// Which record type a key holds.
    enum Kind: String, Sendable {
        case entitlement = "e"
        case customer = "c"
        case purchase = "p"
        /// A notification that is an event of its own (`StandaloneEvent`).
        case standalone = "s"
    }

    /// How long a marker without its event is kept: far longer than one compare-and-set round
    /// (the time between marking and writing), in wall-clock milliseconds.
    static let settle: Int64 = 10 * 60_000

    struct Marker: Sendable, Equatable {
        var markedAt: Int64
        var kind: Kind
        var key: String
        var eventId: String
        /// The outbox as the marking writer wrote it: its own relay, right after the write,
        /// then reads nothing back. Not part of the stored member.
        var written: [Event]? = nil

        /// Fixed-width milliseconds first, so members sort oldest first.
        var member: String {
            let time = String(markedAt)
            return String(repeating: "0", count: max(0, 13 - time.count)) + time + "|" + kind.rawValue + "|" + key + "|" + eventId
        }

        init(markedAt: Int64, kind: Kind, key: String, eventId: String) {
            self.markedAt = markedAt
            self.kind = kind
            self.key = key
            self.eventId = eventId
        }

        /// Keys may hold `|` (a user id can); the time, the kind and the event id cannot.
        init?(member: String) {
            let parts = member.split(separator: "|", omittingEmptySubsequences: false)
            guard parts.count >= 4, let markedAt = Int64(parts[0]), let kind = Kind(rawValue: String(parts[1])) else { return nil }
            self.init(markedAt: markedAt, kind: kind, key: parts[2..<(parts.count - 1)].joined(separator: "|"),
                      eventId: String(parts[parts.count - 1]))
        }
    }

    /// Marks the events of `record`'s outbox that `current`'s did not have, before the write
    /// that carries them; returns their markers. Events of `current`'s outbox that are in the
    /// log by now are dropped from `outbox`: this write takes them out.
    @discardableResult
    static func markNew(in outbox: inout [Event], since previous: [Event]?, key: String, kind: Kind,
                        store: any KeyValueStore) throws(StoreError) -> [Marker] {
        let known = Set((previous ?? []).map(\.id))
        var relayed: Set<String> = []
        for id in known where try EventLog(store: store).sequence(of: id) != nil {
            relayed.insert(id)
        }
        if !relayed.isEmpty { outbox.removeAll { relayed.contains($0.id) } }
        let now = Date().millisecondsSince1970
        var markers: [Marker] = []
        for event in outbox where !known.contains(event.id) {
            var marker = Marker(markedAt: now, kind: kind, key: key, eventId: event.id)
            try store.addToSet(StoreKeys.eventOutboxes, marker.member)
            marker.written = outbox
            markers.append(marker)
        }
        return markers
    }
}

/// The outbox of a notification that is an event although it changes no record
/// (`EventClassifier.standalone`): written once, at `StoreKeys.standaloneEvent`, deleted by the
/// relay once its event is in the log.
struct StandaloneEvent: EventCarrying {
    var outbox: [Event]
}
