/// Delivery attempts to one webhook endpoint by result since counting began
/// (`StoreKeys.webhookDeliveries`): `delivered` (answered 2xx), `failed` (to be retried),
/// `dead` (the last attempt failed: dead-lettered). deliver-events adds each pass's counts in
/// one compare-and-set per endpoint after the pass, not one per event, and replay-events each
/// replay's, so a run killed mid-pass loses that pass's counts (not its deliveries: the cursor,
/// the backlogs and the dead letters hold those).
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
        var added = Self()
        added.delivered = report.delivered
        added.failed = report.failed
        added.dead = report.deadLettered
        try add(added, endpoint: report.endpoint, store: store)
    }

    /// Adds a replay's attempts (replay-events: one per event; a failure stays a dead letter,
    /// so it counts as failed, not dead again).
    public static func add(_ report: WebhookReplay.Report, store: any KeyValueStore) throws(StoreError) {
        var added = Self()
        added.delivered = report.delivered
        added.failed = report.failed
        try add(added, endpoint: report.endpoint, store: store)
    }

    static func add(_ added: Self, endpoint: String, store: any KeyValueStore) throws(StoreError) {
        guard added.delivered + added.failed + added.dead > 0 else { return }
        try store.update(StoreKeys.webhookDeliveries(endpoint: endpoint), as: Self.self, attempts: attempts) {
            (current) throws(StoreError) -> StoreUpdate<Self, Void> in
            var counts = current ?? Self()
            counts.delivered += added.delivered
            counts.failed += added.failed
            counts.dead += added.dead
            return .write(counts, ())
        }
    }

    /// The endpoint's counts; zero before its first pass.
    public static func read(endpoint: String, store: any KeyValueStore) throws(StoreError) -> Self {
        try store.get(StoreKeys.webhookDeliveries(endpoint: endpoint), as: Self.self) ?? Self()
    }
}
