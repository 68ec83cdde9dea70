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
/// Apple's error name or the transport's code, with the disposition of the API's error.
public struct NotificationHistoryFailure: CodedError, Sendable {
    public let code: String
    public let reason: String
    public let disposition: ErrorDisposition
    public let origin: ErrorOrigin

    public init(code: String, reason: String, disposition: ErrorDisposition, origin: ErrorOrigin) {
        self.code = code
        self.reason = reason
        self.disposition = disposition
        self.origin = origin
    }

    public var retryable: Bool { isRetryable }
}
