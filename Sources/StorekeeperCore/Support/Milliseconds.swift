import FoundationEssentials

/// Apple and the store both count time in whole milliseconds since 1970; these are the one
/// conversion everybody uses (truncating, and saturating instead of trapping on absurd values).
extension Date {
    public var millisecondsSince1970: Int64 {
        let milliseconds = (timeIntervalSince1970 * 1000).rounded(.down)
        guard milliseconds.isFinite else { return milliseconds < 0 ? .min : .max }
        return Int64(exactly: milliseconds) ?? (milliseconds < 0 ? .min : .max)
    }

    public init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension Duration {
    /// Whole milliseconds, truncated; a caller's `.seconds(.max)` saturates rather than traps.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        if overflow { return seconds < 0 ? .min : .max }
        return milliseconds.saturatingAdding(attoseconds / 1_000_000_000_000_000)
    }
}

extension Int64 {
    public func saturatingAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        if overflow { return other < 0 ? .min : .max }
        return sum
    }
}
