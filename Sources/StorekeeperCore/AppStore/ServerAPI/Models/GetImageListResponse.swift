/// Every uploaded image with its review state and size.
///
/// [GetImageListResponse](https://developer.apple.com/documentation/retentionmessaging/getimagelistresponse)
public struct GetImageListResponse: Codable, Sendable, Equatable {
    public var imageIdentifiers: [GetImageListResponseItem]?
}

/// [GetImageListResponseItem](https://developer.apple.com/documentation/retentionmessaging/getimagelistresponseitem)
public struct GetImageListResponseItem: Codable, Sendable, Equatable {
    public var imageIdentifier: String?
    /// `PENDING`, `APPROVED`, `REJECTED`.
    public var imageState: String?
    /// `FULL_SIZE`, `BULLET_POINT`.
    public var imageSize: String?
}
