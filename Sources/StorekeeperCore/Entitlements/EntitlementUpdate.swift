/// What applying one event did.
public struct EntitlementUpdate: Sendable, Equatable {
    public enum Outcome: String, Sendable, Codable {
        /// The record changed.
        case applied
        /// Nothing new: the event is older than what the record already holds.
        case stale
        /// Nothing new: this very event was applied before.
        case duplicate
        /// Not about an entitlement (a TEST notification, a type Storekeeper does not know,
        /// a consumable): kept by the caller, not applied.
        case ignored
    }

    public var outcome: Outcome
    /// The record after the event (for stale, unchanged but for the event's timeline entry;
    /// unchanged for duplicate; nil when ignored and there was none).
    public var record: EntitlementRecord?
    /// Why it was ignored, for the log.
    public var reason: String?
}
