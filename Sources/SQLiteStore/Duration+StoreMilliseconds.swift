extension Duration {
    /// Whole milliseconds (truncated), saturating instead of trapping on absurd durations: a
    /// caller's `.seconds(.max)` must not crash the process.
    var storeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        if overflow { return seconds < 0 ? .min : .max }
        return milliseconds.saturatingAdding(attoseconds / 1_000_000_000_000_000)
    }
}

extension Int64 {
    func saturatingAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        if overflow { return other < 0 ? .min : .max }
        return sum
    }
}
