/// Where recovery reads what Apple sent: Get Notification History, one page at a time, in
/// production through the App Store Server API client. A port, like `SubscriptionStatusLookup`.
public protocol NotificationHistorySource {
    /// One page of the history for `query`, continuing at `paginationToken` (nil: the first page).
    func page(_ query: NotificationHistoryRequest, paginationToken: String?) throws(NotificationHistoryFailure) -> NotificationHistoryPage
}

/// One page of Get Notification History.
public struct NotificationHistoryPage: Sendable, Equatable {
    public struct Item: Sendable, Equatable {
        public var signedPayload: String
        /// Each attempt's `sendAttemptResult` (SUCCESS, SSL_ISSUE, TIMED_OUT, ...), oldest first.
        public var sendAttemptResults: [String]

        public init(signedPayload: String, sendAttemptResults: [String]) {
            self.signedPayload = signedPayload
            self.sendAttemptResults = sendAttemptResults
        }
    }

    public var items: [Item]
    public var paginationToken: String?
    public var hasMore: Bool

    public init(items: [Item], paginationToken: String?, hasMore: Bool) {
        self.items = items
        self.paginationToken = paginationToken
        self.hasMore = hasMore
    }
}

/// Why a page could not be read: the run stops there and resumes at the same page next time.
public struct NotificationHistoryFailure: Error, Sendable, CustomStringConvertible {
    /// Apple's error name or the transport's code.
    public var code: String
    public var reason: String
    public var retryable: Bool

    public init(code: String, reason: String, retryable: Bool) {
        self.code = code
        self.reason = reason
        self.retryable = retryable
    }

    public var description: String { "\(code): \(reason)" }
}
