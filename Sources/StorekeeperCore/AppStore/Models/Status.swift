import FoundationEssentials

/// The status of an auto-renewable subscription when the App Store signed the notification.
///
/// [status](https://developer.apple.com/documentation/appstoreservernotifications/status)
public enum Status: Int32, Codable, Sendable, Hashable, CaseIterable {
    case active = 1
    case expired = 2
    case billingRetry = 3
    case billingGracePeriod = 4
    case revoked = 5
}
