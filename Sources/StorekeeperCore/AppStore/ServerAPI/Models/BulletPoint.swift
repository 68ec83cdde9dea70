/// One bullet point of a retention message: text (≤ 66) and an image uploaded with
/// `imageSize` BULLET_POINT.
///
/// [BulletPoint](https://developer.apple.com/documentation/retentionmessaging/bulletpoint)
public struct BulletPoint: Codable, Sendable, Equatable {
    public var text: String
    public var imageIdentifier: String
    public var altText: String
}
