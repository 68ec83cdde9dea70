/// A retention message to upload: a header (≤ 66 characters), a body (≤ 144), optionally an
/// image and up to five bullet points. Apple reviews it before it can be shown.
///
/// [UploadMessageRequestBody](https://developer.apple.com/documentation/retentionmessaging/uploadmessagerequestbody)
public struct UploadMessageRequestBody: Codable, Sendable, Equatable {
    public var header: String
    public var body: String
    public var image: UploadMessageImage?
    /// The wire value of `headerPosition` (`ABOVE_BODY`, `ABOVE_IMAGE`).
    public var headerPosition: String?
    public var bulletPoints: [BulletPoint]?

    public init(header: String, body: String, image: UploadMessageImage? = nil, headerPosition: String? = nil,
                bulletPoints: [BulletPoint]? = nil) {
        self.header = header
        self.body = body
        self.image = image
        self.headerPosition = headerPosition
        self.bulletPoints = bulletPoints
    }
}
