import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's clocks, for production: `now()` is the wall clock unless `pinnedAt` stops
/// it at one instant (`STOREKEEPER_NOW`, tests); the real wall time, the monotonic clock and
/// sleeping are never pinned.
public struct SystemTime: TimeSource {
    /// The instant `now()` answers, when decisions are pinned.
    public let pinnedAt: Date?

    public init(pinnedAt: Date? = nil) {
        self.pinnedAt = pinnedAt
    }

    public func now() -> Date { pinnedAt ?? Date() }

    public func realNow() -> Date { Date() }

    public func monotonic() -> Duration {
        var spec = timespec()
        // CLOCK_MONOTONIC cannot fail with a valid clock id and pointer.
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
}
