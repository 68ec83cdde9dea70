import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// migrate-receipt's calls to Apple under the public route's own shared bucket
/// (`appstore:ratelimit:migrate`, `MIGRATE_REQUESTS_PER_SECOND`), apart from reconcile's, so
/// the public cannot starve reconcile.
///
/// A public request never waits for a token: the first call of a request that finds the
/// bucket empty is refused (`refusedCode`, carrying how long until a token), and the caller
/// answers 429 with `Retry-After`, nothing asked of Apple. Once a request's first call went out,
/// its later calls (more history pages, the statuses, Set App Account Token, retries) take
/// their tokens on credit: a migration stopped half way would have spent quota for nothing.
/// The next request waits the debt off. Apple's own `Retry-After` holds every process back,
/// as reconcile's gate does.
///
/// The bucket reads the real wall time, never pinned, as in `SharedRateLimitGate`.
final class MigrationRateLimitGate: AppStoreAPIRequestGate {
    private let limiter: SharedRateLimiter
    private let time: any TimeSource
    private var sent = 0

    /// The refusal of a call because the bucket is empty; `retryAfter` says for how long.
    static let refusedCode = AppStoreAPIError.OwnCode.migrationRateLimited.rawValue
    /// How many calls one request may take beyond the bucket: more than a migration needs
    /// (a few history pages, the statuses, a token or two), few enough to bound one receipt.
    static let credit: Double = 16

    private let log: Logger?

    init(limiter: SharedRateLimiter, time: any TimeSource, log: Logger? = nil) {
        self.limiter = limiter
        self.time = time
        self.log = log
    }

    func willSend(_ attempt: AppStoreAPIAttempt) throws(AppStoreAPIError) {
        let decision: SharedRateLimiter.Decision
        do {
            decision = try limiter.tryAcquire(now: time.realNow(), credit: sent == 0 ? 0 : Self.credit)
        } catch {
            // Our store's outage, not the caller's fault nor Apple's: 503 like every store fault.
            throw SharedRateLimitGate.storeFailure(error, log: log)
        }
        switch decision {
        case .proceed:
            sent += 1
        case .wait(let delay):
            throw AppStoreAPIError(kind: .invalidRequest, code: Self.refusedCode,
                                   reason: "the shared rate limit of migrations has no token now", isRetryable: true,
                                   retryAfter: delay)
        }
    }

    func didReceiveRetryAfter(_ delay: Duration, for attempt: AppStoreAPIAttempt) {
        // Best effort: if the store cannot take it, this process still waits (the client does).
        try? limiter.holdBack(for: delay, now: time.realNow())
    }
}
