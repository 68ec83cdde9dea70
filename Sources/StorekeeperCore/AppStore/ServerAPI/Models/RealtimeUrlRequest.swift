/// The Get Retention Message endpoint's URL (≤ 256 characters), per environment.
///
/// [RealtimeUrlRequest](https://developer.apple.com/documentation/retentionmessaging/realtimeurlrequest)
public struct RealtimeUrlRequest: Codable, Sendable, Equatable {
    public var realtimeURL: String

    public init(realtimeURL: String) {
        self.realtimeURL = realtimeURL
    }
}

/// [RealtimeUrlResponse](https://developer.apple.com/documentation/retentionmessaging/realtimeurlresponse)
public typealias RealtimeUrlResponse = RealtimeUrlRequest
