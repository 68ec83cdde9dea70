import FoundationEssentials

/// The platform on which the customer originally bought the app (an app transaction's
/// `originalPlatform`).
///
/// [originalPlatform](https://developer.apple.com/documentation/appstoreserverapi/originalplatform)
public enum PurchasePlatform: String, Codable, Sendable, Hashable, CaseIterable {
    case iOS = "iOS"
    case macOS = "macOS"
    case tvOS = "tvOS"
    case visionOS = "visionOS"
}
