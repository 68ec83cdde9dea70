/// What a writer needs to relay its own events into the log at once, rather than leave them
/// for the next `relayPending`: the catalog (the customer state an event carries is computed
/// with it) and the function's clock (events are recorded at its time).
public struct EventRecording {
    public var catalog: Catalog
    public var time: any TimeSource
    /// Sees a relay that failed (for the log). The write it follows stands: its events wait in
    /// their outbox for the next `relayPending`, so the caller's change is not failed for it.
    public var onRelayFailure: (any Error) -> Void

    public init(catalog: Catalog, time: any TimeSource, onRelayFailure: @escaping (any Error) -> Void = { _ in }) {
        self.catalog = catalog
        self.time = time
        self.onRelayFailure = onRelayFailure
    }

    /// The function's time, in milliseconds.
    var now: Int64 { time.now().millisecondsSince1970 }

    func relay(_ markers: [EventOutbox.Marker], store: any KeyValueStore) {
        let relay = EventRelay(store: store, catalog: catalog)
        do {
            for marker in markers { try relay.relay(marker, now: now) }
        } catch {
            onRelayFailure(error)
        }
    }
}
