/// How an App Store Server API call retries: how often, how long it waits, and the total time
/// it may take.
///
/// A 429 waits what Apple's `Retry-After` says (capped by `maximumRetryAfter`); 5xx answers,
/// Apple's retryable codes, timeouts and connection failures wait a bounded exponential
/// backoff with full jitter (a uniform wait in 0...min(maximumBackoff, initialBackoff·2ⁿ⁻¹)),
/// so many workers that failed together do not retry together. A non-retryable answer never
/// retries. No wait ever runs past `deadline`.
public struct AppStoreAPIRetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var maximumAttempts: Int
    public var initialBackoff: Duration
    public var maximumBackoff: Duration
    /// The longest `Retry-After` honoured; a longer one ends the call (retryable).
    public var maximumRetryAfter: Duration
    /// Total time for the call, attempts and waits included.
    public var deadline: Duration
    /// Time allowed for one attempt (also bounded by what is left of `deadline`).
    public var attemptTimeout: Duration
    public var connectTimeout: Duration

    public init(maximumAttempts: Int = 4, initialBackoff: Duration = .milliseconds(500),
                maximumBackoff: Duration = .seconds(8), maximumRetryAfter: Duration = .seconds(30),
                deadline: Duration = .seconds(45), attemptTimeout: Duration = .seconds(20),
                connectTimeout: Duration = .seconds(5)) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.maximumRetryAfter = maximumRetryAfter
        self.deadline = deadline
        self.attemptTimeout = attemptTimeout
        self.connectTimeout = connectTimeout
    }

    public static let `default` = AppStoreAPIRetryPolicy()

    /// The largest backoff before retry number `retry` (1 for the first retry).
    public func backoffCeiling(retry: Int) -> Duration {
        var ceiling = initialBackoff
        var step = 1
        while step < retry && ceiling < maximumBackoff {
            ceiling = ceiling * 2
            step += 1
        }
        return min(ceiling, maximumBackoff)
    }

    /// Full jitter: `unit` (in 0..<1) of the ceiling.
    public func backoff(retry: Int, unit: Double) -> Duration {
        let clamped = min(max(unit, 0), 1)
        return backoffCeiling(retry: retry) * clamped
    }
}
