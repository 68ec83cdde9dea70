/// A performance test started: its id (for Get Performance Test Results) and how it runs.
///
/// [PerformanceTestResponse](https://developer.apple.com/documentation/retentionmessaging/performancetestresponse)
public struct PerformanceTestResponse: Codable, Sendable, Equatable {
    public var config: PerformanceTestConfig?
    public var requestId: String?
}

/// [PerformanceTestConfig](https://developer.apple.com/documentation/retentionmessaging/performancetestconfig)
public struct PerformanceTestConfig: Codable, Sendable, Equatable {
    public var maxConcurrentRequests: Int64?
    public var totalRequests: Int64?
    /// Milliseconds.
    public var totalDuration: Int64?
    /// Milliseconds: an answer slower than this fails.
    public var responseTimeThreshold: Int64?
    /// Percent of answers that must succeed.
    public var successRateThreshold: Int64?
}
