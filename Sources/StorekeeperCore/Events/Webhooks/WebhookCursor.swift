/// How far deliver-events has come in the event log for one endpoint: every event up to
/// `sequence` was delivered, filtered out, dead-lettered, or waits in its customer's backlog
/// (`WebhookBacklog`). Written by compare-and-set after each delivery, so a killed run
/// re-sends at most the event it had in flight: at least once, never skipped.
public struct WebhookCursor: StoreRecord, Sendable, Equatable {
    public var sequence: Int64

    public init(sequence: Int64) {
        self.sequence = sequence
    }
}
