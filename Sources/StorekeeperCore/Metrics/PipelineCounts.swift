/// Notifications received, by type (`StoreKeys.metricsNotifications` since counting began,
/// `metricsNotificationDay` per day), and the last one.
public struct NotificationCounts: StoreRecord, Sendable, Equatable {
    /// Apple's `notificationType` → count.
    public var types: [String: Int] = [:]
    /// When the last one counted reached Storekeeper (ms); only in the running totals.
    public var lastReceivedAt: Int64?
    public var lastType: String?

    public init() {}
}

/// The last notification the worker gave up on (`StoreKeys.metricsDeadLetter`).
public struct DeadLetterNote: StoreRecord, Sendable, Equatable {
    public var notificationUUID: String
    /// The error's wire code (`CodedError.code`), `error` when it has none.
    public var code: String
    public var at: Int64

    public init(notificationUUID: String, code: String, at: Int64) {
        self.notificationUUID = notificationUUID
        self.code = code
        self.at = at
    }
}

/// Reconciliation corrections (each one a lost notification) by kind ("expired→active").
public struct CorrectionCounts: StoreRecord, Sendable, Equatable {
    public var kinds: [String: Int] = [:]

    public init() {}
}
