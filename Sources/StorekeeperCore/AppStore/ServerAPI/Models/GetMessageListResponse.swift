/// Every uploaded message with its review state.
///
/// [GetMessageListResponse](https://developer.apple.com/documentation/retentionmessaging/getmessagelistresponse)
public struct GetMessageListResponse: Codable, Sendable, Equatable {
    public var messageIdentifiers: [GetMessageListResponseItem]?
}

/// [GetMessageListResponseItem](https://developer.apple.com/documentation/retentionmessaging/getmessagelistresponseitem)
public struct GetMessageListResponseItem: Codable, Sendable, Equatable {
    public var messageIdentifier: String?
    /// `PENDING`, `APPROVED`, `REJECTED`.
    public var messageState: String?
}
