/// Delivery attempts to one webhook endpoint by result since counting began
/// (`StoreKeys.webhookDeliveries`): `delivered` (answered 2xx), `failed` (to be retried),
/// `dead` (the last attempt failed: dead-lettered). deliver-events adds each pass's counts in
/// one compare-and-set per endpoint after the pass, not one per event, so a run killed mid-pass
/// loses that pass's counts (not its deliveries: the cursor and the backlogs hold those).
public struct WebhookDeliveryCounts: StoreRecord, Sendable, Equatable {
    public var delivered = 0
    public var failed = 0
    public var dead = 0

    public init() {}

    /// The `result` label of `storekeeper_webhook_deliveries_total` with its count, in a fixed order.
    public var results: [(result: String, count: Int)] {
        [("delivered", delivered), ("failed", failed), ("dead", dead)]
    }

    /// Rounds against another writer (replay-events) before giving up (retryable).
    static let attempts = 32

    /// Adds a pass's attempts to its endpoint's counts; writes nothing when it attempted nothing.
    public static func add(_ report: WebhookPassReport, store: any KeyValueStore) throws(StoreError) {
        guard report.delivered + report.failed + report.deadLettered > 0 else { return }
        try store.update(StoreKeys.webhookDeliveries(endpoint: report.endpoint), as: Self.self, attempts: attempts) {
            (current) throws(StoreError) -> StoreUpdate<Self, Void> in
            var counts = current ?? Self()
            counts.delivered += report.delivered
            counts.failed += report.failed
            counts.dead += report.deadLettered
            return .write(counts, ())
        }
    }

    /// The endpoint's counts; zero before its first pass.
    public static func read(endpoint: String, store: any KeyValueStore) throws(StoreError) -> Self {
        try store.get(StoreKeys.webhookDeliveries(endpoint: endpoint), as: Self.self) ?? Self()
    }
}
