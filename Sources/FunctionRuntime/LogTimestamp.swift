import FoundationEssentials
import StorekeeperCore

/// RFC 3339 UTC timestamps with milliseconds (`2024-05-01T12:00:00.123Z`), computed by hand:
/// a date formatter would cost more at start-up than the whole request.
enum LogTimestamp {
    static func format(_ date: Date) -> String {
        // Nearest, not down: 0.123 s is 122.99999 ms in binary floating point.
        let millisecondsSinceEpoch = (date.timeIntervalSince1970 * 1000).rounded()
        guard millisecondsSinceEpoch.magnitude < 1e17 else { return "invalid-date" }
        return UTCTimestamp.format(milliseconds: Int64(millisecondsSinceEpoch))
    }
}
