/// What deliver-events keeps per endpoint, in the store (keys in `StoreKeys`, "Webhooks"):
/// how far into the event log it has come, and per customer whose delivery failed, the
/// events waiting in order. Each is written by compare-and-set after each delivery, so a
/// killed run re-sends at most the event it had in flight: at least once, never skipped.

/// Every event of the log up to `sequence` was delivered, filtered out, dead-lettered, or is
/// waiting in its customer's backlog.
public struct WebhookCursor: StoreRecord, Sendable, Equatable {
    public var sequence: Int64

    public init(sequence: Int64) {
        self.sequence = sequence
    }
}

/// One customer's events that wait for the endpoint, oldest first. Only the first is being
/// retried; the others wait behind it, so the customer's events arrive in order while other
/// customers' go on.
public struct WebhookBacklog: StoreRecord, Sendable, Equatable {
    public var events: [WaitingEvent]

    public init(events: [WaitingEvent]) {
        self.events = events
    }
}

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

/// An event the endpoint never acknowledged within the retry window: kept with its last
/// answer until replay-events delivers it.
public struct WebhookDeadLetter: StoreRecord, Sendable, Equatable {
    public var sequence: Int64
    public var id: String
    public var type: String
    public var customerId: String?
    public var attempts: Int
    public var firstFailedAt: Int64?
    public var deadAt: Int64
    public var lastAnswer: String

    public init(_ waiting: WaitingEvent, customerId: String?, deadAt: Int64) {
        sequence = waiting.sequence
        id = waiting.id
        type = waiting.type
        self.customerId = customerId
        attempts = waiting.attempts
        firstFailedAt = waiting.firstFailedAt
        self.deadAt = deadAt
        lastAnswer = waiting.lastAnswer ?? "unknown"
    }
}

/// How much may wait per endpoint before the cursor stops (back-pressure): the state stays
/// bounded however long an endpoint is down, and the log keeps the rest.
public struct WebhookLimits: Sendable, Equatable {
    public var maximumWaitingCustomers: Int
    public var maximumEventsPerCustomer: Int

    public init(maximumWaitingCustomers: Int = 1_000, maximumEventsPerCustomer: Int = 100) {
        self.maximumWaitingCustomers = maximumWaitingCustomers
        self.maximumEventsPerCustomer = maximumEventsPerCustomer
    }
}
