/// How the realtime endpoint did in a performance test: `PASS` is required before a
/// production realtime URL can be configured.
///
/// [PerformanceTestResultResponse](https://developer.apple.com/documentation/retentionmessaging/performancetestresultresponse)
public struct PerformanceTestResultResponse: Codable, Sendable, Equatable {
    public var config: PerformanceTestConfig?
    public var target: String?
    /// `PENDING`, `PASS`, `FAIL`.
    public var result: String?
    public var successRate: Int64?
    public var numPending: Int64?
    public var responseTimes: PerformanceTestResponseTimes?
    /// Failed requests by `SendAttemptResult`.
    public var failures: [String: Int64]?
}

/// Milliseconds.
/// [PerformanceTestResponseTimes](https://developer.apple.com/documentation/retentionmessaging/performancetestresponsetimes)
public struct PerformanceTestResponseTimes: Codable, Sendable, Equatable {
    public var average: Int64?
    public var p50: Int64?
    public var p90: Int64?
    public var p95: Int64?
    public var p99: Int64?
}
