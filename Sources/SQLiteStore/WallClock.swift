#if canImport(Glibc)
import Glibc
#endif
import StorekeeperCore

/// The SQLite store's time: this process's wall clock in milliseconds since 1970. Expiries,
/// leases and visibility are stored as such instants, so every process on the machine agrees.
enum WallClock {
    static func nowMilliseconds() -> Int64 {
        var now = timespec()
        // CLOCK_REALTIME cannot fail with a valid clock id and pointer.
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// `now + duration`, saturating; nil duration means never.
    static func milliseconds(after duration: Duration?, from now: Int64) -> Int64? {
        guard let duration else { return nil }
        return now.saturatingAdding(duration.wholeMilliseconds)
    }
}
