import FoundationEssentials

/// Request a Test Notification's answer.
///
/// [SendTestNotificationResponse](https://developer.apple.com/documentation/appstoreserverapi/sendtestnotificationresponse)
public struct SendTestNotificationResponse: Codable, Sendable, Equatable {
    public var testNotificationToken: String?
}
