/// How a notification reached Storekeeper, as the stored record's `via` spells it.
public enum NotificationArrival: String, Codable, Sendable, CaseIterable {
    /// Apple called the webhook (`receive-notification`).
    case webhook
    /// Taken from Apple's Notification History (`recover-notifications`).
    case recovery
}
