import FoundationEssentials

/// One attempt to deliver a notification.
///
/// [SendAttemptItem](https://developer.apple.com/documentation/appstoreserverapi/sendattemptitem)
public struct SendAttemptItem: Codable, Sendable, Equatable {
    /// Milliseconds since 1970.
    public var attemptDate: Int64?
    /// The wire value of `sendAttemptResult`.
    public var rawSendAttemptResult: String?

    public var sendAttemptResult: SendAttemptResult? { rawSendAttemptResult.flatMap(SendAttemptResult.init(rawValue:)) }

    public init(attemptDate: Int64? = nil, rawSendAttemptResult: String? = nil) {
        self.attemptDate = attemptDate
        self.rawSendAttemptResult = rawSendAttemptResult
    }

    enum CodingKeys: String, CodingKey {
        case attemptDate
        case rawSendAttemptResult = "sendAttemptResult"
    }
}
