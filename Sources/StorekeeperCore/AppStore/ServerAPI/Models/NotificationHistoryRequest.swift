import FoundationEssentials

/// The body of Get Notification History: a date range (required, at most 180 days back) and at
/// most one of the optional filters.
///
/// [NotificationHistoryRequest](https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryrequest)
public struct NotificationHistoryRequest: Codable, Sendable, Equatable {
    /// Milliseconds since 1970.
    public var startDate: Int64?
    /// Milliseconds since 1970.
    public var endDate: Int64?
    /// A `NotificationTypeV2` wire value.
    public var notificationType: String?
    /// A `Subtype` wire value.
    public var notificationSubtype: String?
    public var transactionId: String?
    public var onlyFailures: Bool?

    public init(startDate: Int64? = nil, endDate: Int64? = nil, notificationType: String? = nil,
                notificationSubtype: String? = nil, transactionId: String? = nil, onlyFailures: Bool? = nil) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }
}
