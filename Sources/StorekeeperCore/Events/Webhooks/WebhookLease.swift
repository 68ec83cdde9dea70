/// The right to send to one endpoint now, held by one run at a time (deliver-events or
/// replay-events), so two runs never send the same event at the same moment: a random token
/// written with `setIfAbsent` and an expiry, renewed while the run works, let go at its end.
/// A killed run's lease expires by itself (the store's clock).
public final class WebhookLease {
    private let store: any KeyValueStore
    private let key: String
    private let token: [UInt8]
    private let duration: Duration
    private let clock: any TimeSource
    private var renewedAt: Duration

    /// The lease, or nil when another run holds it.
    public static func acquire(_ endpoint: String, store: any KeyValueStore, duration: Duration,
                               clock: any TimeSource) throws(StoreError) -> WebhookLease? {
        let lease = WebhookLease(store: store, key: StoreKeys.webhookLease(endpoint: endpoint), duration: duration, clock: clock)
        guard try store.setIfAbsent(lease.key, lease.token, expiresIn: duration) else { return nil }
        return lease
    }

    private init(store: any KeyValueStore, key: String, duration: Duration, clock: any TimeSource) {
        self.store = store
        self.key = key
        token = Array(RandomToken.hex128().utf8)
        self.duration = duration
        self.clock = clock
        renewedAt = clock.monotonic()
    }

    /// Call before each send: renews once a third of the lease has gone. False when the lease
    /// was lost (it expired and another run took it): stop sending.
    public func keep() throws(StoreError) -> Bool {
        guard clock.monotonic() - renewedAt >= duration / 3 else { return true }
        guard let current = try store.get(key), current.bytes == token else { return false }
        guard try store.compareAndSet(key, token, expectedVersion: current.version, expiresIn: duration) else { return false }
        renewedAt = clock.monotonic()
        return true
    }

    /// Lets the next run start at once; only while the lease is still this run's.
    public func release() {
        guard let current = try? store.get(key), current.bytes == token else { return }
        _ = try? store.compareAndSet(key, token, expectedVersion: current.version, expiresIn: .milliseconds(1))
    }
}
