/// What a writer needs to relay its own events into the log soon after its write, rather
/// than leave them for the next `relayPending`: the catalog (the customer state an event
/// carries is computed with it) and the function's clock (events are recorded at its time).
///
/// At once by default. `deferred` keeps the markers until `flush`: a batch (ingest-transaction
/// answering NDJSON lines, one input) then relays once, reading each customer's state once
/// rather than once per line, and a FastCGI request relays after its answer is sent.
public final class EventRecording {
    public let catalog: Catalog
    public let time: any TimeSource
    public let deferred: Bool
    /// Sees a relay that failed (for the log). The write it follows stands: its events wait in
    /// their outbox for the next `relayPending`, so the caller's change is not failed for it.
    public let onRelayFailure: (any Error) -> Void
    private var waiting: [EventOutbox.Marker] = []

    public init(catalog: Catalog, time: any TimeSource, deferred: Bool = false,
                onRelayFailure: @escaping (any Error) -> Void = { _ in }) {
        self.catalog = catalog
        self.time = time
        self.deferred = deferred
        self.onRelayFailure = onRelayFailure
    }

    /// The function's time, in milliseconds.
    var now: Int64 { time.now().millisecondsSince1970 }

    func relay(_ markers: [EventOutbox.Marker], store: any KeyValueStore) {
        guard !deferred else {
            waiting += markers
            return
        }
        relayNow(markers, store: store)
    }

    /// Relays what `deferred` kept; how many events it appended.
    @discardableResult
    public func flush(store: any KeyValueStore) -> Int {
        let markers = waiting
        waiting = []
        return markers.isEmpty ? 0 : relayNow(markers, store: store)
    }

    @discardableResult
    private func relayNow(_ markers: [EventOutbox.Marker], store: any KeyValueStore) -> Int {
        do {
            return try EventRelay(store: store, catalog: catalog).relay(markers, now: now)
        } catch {
            onRelayFailure(error)
            return 0
        }
    }
}
