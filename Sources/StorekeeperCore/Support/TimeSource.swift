import FoundationEssentials

/// Every reading of time goes through this port: the instant decisions are made against, the
/// real wall time, a monotonic clock and sleeping. Decision logic never reads the system
/// clock itself, so tests pin the time and fixtures never expire.
///
/// Only `now()` may be pinned (`STOREKEEPER_NOW`, tests). Everything another party or another
/// process measures against its own clock reads `realNow()`, and budgets read `monotonic()`,
/// so a pinned replay still dates Apple's tokens right and still stops on time.
public protocol TimeSource: Sendable {
    /// The instant checks and records are made against: expiry of signed data and sessions,
    /// the dates written into entitlements. Pinned in replays and golden examples.
    func now() -> Date

    /// The wall time as it is, even when `now()` is pinned: for timestamps Apple checks
    /// against its own clock (the `iat` of API tokens and client secrets), for store
    /// expiries every process shares, and for pacing requests in real seconds.
    func realNow() -> Date

    /// Monotonic time since an arbitrary origin, for budgets, deadlines and timing. Never
    /// pinned, never steps back.
    func monotonic() -> Duration

    /// Blocks the calling thread for `duration` (nothing when it is not positive).
    func sleep(for duration: Duration)
}
