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
