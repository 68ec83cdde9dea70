import FunctionRuntime
import StorekeeperCore

extension EventRecording {
    /// A function's own events relayed at once, at its clock; a relay that fails is a warning
    /// in its log (the events wait in their outbox for the next relay, nothing is lost).
    static func of(_ context: FunctionContext, catalog: Catalog, deferred: Bool = false) -> EventRecording {
        let log = context.log
        return EventRecording(catalog: catalog, time: context.clock, deferred: deferred) { error in
            log.warning("event_relay_deferred", ["error": String(describing: error)])
        }
    }
}
