extension Duration {
    /// Whole milliseconds for a libcurl *_MS option, rounded up and at least 1: libcurl reads
    /// 0 as "no limit", so a zero or negative duration must not switch the timeout off.
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        guard seconds >= 0, seconds > 0 || attoseconds > 0 else { return 1 }
        // About 292 million years fits; anything longer is clamped rather than trapping.
        let limit = Int64(Int.max / 2)
        let whole = seconds > limit / 1000 ? limit : seconds * 1000
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(max(1, min(limit, whole + fraction)))
    }
}
