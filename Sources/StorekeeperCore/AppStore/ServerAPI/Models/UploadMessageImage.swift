/// The image of a retention message: one uploaded before (Upload Image), with its alt text (≤ 150).
///
/// [UploadMessageImage](https://developer.apple.com/documentation/retentionmessaging/uploadmessageimage)
public struct UploadMessageImage: Codable, Sendable, Equatable {
    public var imageIdentifier: String
    public var altText: String
}
