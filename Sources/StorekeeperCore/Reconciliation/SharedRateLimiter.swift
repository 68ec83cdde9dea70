import FoundationEssentials

/// A token bucket kept in the store, so every process that calls Apple's status endpoint (two
/// `reconcile` runs from two cron hosts, an operator's run by hand) shares one budget. Apple's
/// limits are per developer account, not per process: a limit each process kept for itself
/// would multiply with the number of processes.
///
/// The bucket is one record updated by compare-and-set. A `Retry-After` from Apple is written
/// into the same record, so every process waits it out, not only the one that was told.
public struct SharedRateLimiter {
    /// The answer to "may I send a request now?".
    public enum Decision: Equatable, Sendable {
        case proceed
        /// Try again after this long.
        case wait(Duration)
    }

    struct Bucket: StoreRecord, Equatable {
        /// Tokens left at `updatedAt` (fractions accumulate between requests).
        var tokens: Double
        /// Milliseconds since 1970.
        var updatedAt: Int64
        /// No request before this instant (milliseconds), set from Apple's Retry-After.
        var blockedUntil: Int64?
    }

    public let key: String
    /// Requests per second, on average, across every process.
    public let requestsPerSecond: Double
    /// How many requests may go at once after a quiet period.
    public let burst: Double
    private let store: any KeyValueStore

    static let compareAndSetAttempts = 64

    public init(store: any KeyValueStore, key: String = StoreKeys.appStoreAPIRateLimit,
                requestsPerSecond: Double, burst: Double? = nil) {
        self.store = store
        self.key = key
        self.requestsPerSecond = max(requestsPerSecond, 0.001)
        self.burst = max(burst ?? self.requestsPerSecond.rounded(.up), 1)
    }

    /// Takes one token if there is one; otherwise says how long until there will be.
    ///
    /// `credit`: how far below empty this request may take the bucket. 0 (reconcile): a
    /// token must be there. A caller that must not stop half way once its first request went
    /// out (one migration is several calls) takes its later tokens on credit: the bucket goes
    /// negative and whoever comes next waits the debt off, so the average rate still holds.
    /// Apple's Retry-After is never borrowed against.
    public func tryAcquire(now: Date, credit: Double = 0) throws(StoreError) -> Decision {
        let needed = 1 - max(credit, 0)
        let nowMilliseconds = now.millisecondsSince1970
        // A damaged bucket starts over (full); heavy contention waits a little, which is always
        // safe for a limiter.
        return try store.update(key, as: Bucket.self, expiresIn: Self.lifetime, attempts: Self.compareAndSetAttempts,
                                unreadable: .absent, contended: { .wait(.milliseconds(Int64(1000 / requestsPerSecond))) }) { (stored) -> StoreUpdate<Bucket, Decision> in
            var bucket = stored ?? Bucket(tokens: burst, updatedAt: nowMilliseconds, blockedUntil: nil)
            if let blockedUntil = bucket.blockedUntil, blockedUntil > nowMilliseconds {
                return .keep(.wait(.milliseconds(blockedUntil - nowMilliseconds)))
            }
            bucket.blockedUntil = nil
            let elapsed = Double(max(0, nowMilliseconds - bucket.updatedAt)) / 1000
            bucket.tokens = min(burst, bucket.tokens + elapsed * requestsPerSecond)
            bucket.updatedAt = max(bucket.updatedAt, nowMilliseconds)
            guard bucket.tokens >= needed else {
                let missing = (needed - bucket.tokens) / requestsPerSecond
                return .keep(.wait(.milliseconds(Int64((missing * 1000).rounded(.up)))))
            }
            bucket.tokens -= 1
            return .write(bucket, .proceed)
        }
    }

    /// Apple said "not before `delay` from now": every process holds back until then.
    public func holdBack(for delay: Duration, now: Date) throws(StoreError) {
        let until = now.millisecondsSince1970.saturatingAdding(delay.wholeMilliseconds)
        // Best effort under heavy contention: the other writers are holding back too.
        try store.update(key, as: Bucket.self, expiresIn: Self.lifetime, attempts: Self.compareAndSetAttempts,
                         unreadable: .absent, contended: {}) { (stored) -> StoreUpdate<Bucket, Void> in
            var bucket = stored ?? Bucket(tokens: 0, updatedAt: now.millisecondsSince1970, blockedUntil: nil)
            if let current = bucket.blockedUntil, current >= until { return .keep(()) }
            bucket.blockedUntil = until
            // After the pause, requests resume one at a time rather than in a burst (a debt
            // taken on credit is kept: the pause does not pay it off).
            bucket.tokens = min(bucket.tokens, 0)
            bucket.updatedAt = max(bucket.updatedAt, until)
            return .write(bucket, ())
        }
    }

    /// An idle bucket is full anyway; the record only has to outlive the longest pause.
    static let lifetime: Duration = .seconds(3600)

}

extension SharedRateLimiter.Bucket {
    func storeBytes() throws(StoreError) -> [UInt8] {
        // Three plain fields: written by hand, it cannot fail. Read back as JSON.
        var text = "{\"tokens\":\(tokens),\"updatedAt\":\(updatedAt)"
        if let blockedUntil { text += ",\"blockedUntil\":\(blockedUntil)" }
        return Array((text + "}").utf8)
    }
}
