/// What one pass of deliver-events did for one endpoint.
public struct WebhookPassReport: Codable, Sendable, Equatable {
    public var endpoint: String
    public var host: String
    public var delivered = 0
    /// Attempts that failed and will be retried.
    public var failed = 0
    public var deadLettered = 0
    /// Events the endpoint's `types` or `environments` leave out.
    public var skipped = 0
    /// Still to deliver after the pass: events after the cursor and events waiting to be retried.
    public var pending = 0
    /// True when another run held the endpoint's lease, so this pass sent nothing to it.
    public var busy = false
    /// When the earliest waiting event is due (ms, the function clock); nil when none waits.
    public var nextDueAt: Int64?

    public init(endpoint: WebhookEndpoint) {
        self.endpoint = endpoint.name
        host = endpoint.host
    }
}

/// Why a pass stopped before the end of the log.
enum WebhookPassStop: Error {
    /// The lease was lost or the budget spent: the rest waits for the next pass.
    case stop
}
