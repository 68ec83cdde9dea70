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
