import FoundationEssentials

/// Where an unfinished run stopped. Saved after every subscriber, so a run killed at any moment
/// (or out of time) continues with the next subscriber the next time, and asks nobody twice.
struct ReconciliationCursor: Codable, Equatable {
    /// The last original transaction id finished, in the run's sorted order.
    var after: String
    /// When the run that this cursor continues began (milliseconds).
    var startedAt: Int64

    /// A run that never finishes (Apple down for a week) starts over rather than resuming a
    /// stale walk for ever.
    static let lifetime: Duration = .seconds(7 * 86_400)
}
