#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Time and chance for the retry loop: a monotonic clock, a sleep and a random number.
/// Production sleeps for real; tests record the waits and answer at once.
public protocol AppStoreAPIRetryTiming: AnyObject {
    /// Monotonic time (any origin).
    func now() -> Duration
    func sleep(for duration: Duration)
    /// A uniform number in 0..<1 (the jitter).
    func randomUnit() -> Double
}

/// The real clock, a real sleep, the system's random numbers.
public final class SystemRetryTiming: AppStoreAPIRetryTiming {
    public init() {}

    public func now() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }

    public func sleep(for duration: Duration) {
        guard duration > .zero else { return }
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        // Resume after a signal until the whole wait has passed.
        while nanosleep(&request, &remaining) == -1 && errno == EINTR {
            request = remaining
        }
    }

    public func randomUnit() -> Double { Double.random(in: 0..<1) }
}
