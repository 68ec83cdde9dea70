/// One customer's events that wait for the endpoint, oldest first. Only the first is being
/// retried; the others wait behind it, so the customer's events arrive in order while other
/// customers' go on.
public struct WebhookBacklog: StoreRecord, Sendable, Equatable {
    public var events: [WaitingEvent]

    public init(events: [WaitingEvent]) {
        self.events = events
    }
}
