import FoundationEssentials

/// Apple's signed payloads carry dates as integer milliseconds since 1970. Models store that
/// integer (so it round-trips exactly and no decoder date strategy is needed) and convert here.
enum AppStoreMilliseconds {
    static func date(_ milliseconds: Int64?) -> Date? {
        milliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// `nil` for a date that does not fit in Int64 milliseconds, rather than a trap.
    static func milliseconds(_ date: Date?) -> Int64? {
        guard let date else { return nil }
        return Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded())
    }
}
