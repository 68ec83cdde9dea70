/// The sandbox subscription Apple's performance test asks the realtime endpoint about.
///
/// [PerformanceTestRequest](https://developer.apple.com/documentation/retentionmessaging/performancetestrequest)
public struct PerformanceTestRequest: Codable, Sendable, Equatable {
    public var originalTransactionId: String

    public init(originalTransactionId: String) {
        self.originalTransactionId = originalTransactionId
    }
}
