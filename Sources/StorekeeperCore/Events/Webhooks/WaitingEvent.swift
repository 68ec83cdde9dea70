/// An event waiting in a backlog.
public struct WaitingEvent: Codable, Sendable, Equatable {
    public var sequence: Int64
    public var id: String
    public var type: String
    public var recordedAt: Int64
    /// Failed attempts so far (0: it waits behind an earlier event and was never sent).
    public var attempts: Int
    public var firstFailedAt: Int64?
    /// When it is tried again (the function clock, ms); nil: as soon as it is first in line.
    public var nextDueAt: Int64?
    /// The last answer: an HTTP status, "timeout", "connection refused", ...
    public var lastAnswer: String?

    public init(sequence: Int64, id: String, type: String, recordedAt: Int64, attempts: Int = 0,
                firstFailedAt: Int64? = nil, nextDueAt: Int64? = nil, lastAnswer: String? = nil) {
        self.sequence = sequence
        self.id = id
        self.type = type
        self.recordedAt = recordedAt
        self.attempts = attempts
        self.firstFailedAt = firstFailedAt
        self.nextDueAt = nextDueAt
        self.lastAnswer = lastAnswer
    }

    public init(_ event: Event) {
        self.init(sequence: event.sequence, id: event.id, type: event.type, recordedAt: event.recordedAt)
    }
}
