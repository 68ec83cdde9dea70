import FoundationEssentials

/// One notification Apple sent (or tried to send), and what became of each attempt.
///
/// [NotificationHistoryResponseItem](https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponseitem)
public struct NotificationHistoryResponseItem: Codable, Sendable, Equatable {
    /// The notification's `signedPayload`.
    public var signedPayload: String?
    public var sendAttempts: [SendAttemptItem]?
}
