import FoundationEssentials

/// A customer's refund request as Apple announced it (`CONSUMPTION_REQUEST`) and what became of
/// it: Storekeeper's answer (Send Consumption Information) and Apple's decision (`REFUND`,
/// `REFUND_DECLINED`). One record per transaction at `StoreKeys.refundRequest`, every write a
/// compare-and-set.
///
/// [CONSUMPTION_REQUEST](https://developer.apple.com/documentation/appstoreservernotifications/notificationtype)
public struct RefundRequest: StoreRecord, Sendable, Equatable {
    public var bundleId: String
    /// The environment the notification and its transaction were signed for.
    public var environment: String
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String?
    /// Apple's transaction `type` (`Consumable`, `Auto-Renewable Subscription`, ...).
    public var productType: String?
    public var inAppOwnershipType: String?
    public var purchaseDate: Int64?
    public var appAccountToken: String?
    /// Apple's `consumptionRequestReason`, as signed.
    public var consumptionRequestReason: String?
    /// The notification that asked (the latest, when Apple asked again for the transaction).
    public var notificationUUID: String
    public var signedDate: Int64
    public var receivedAt: Int64
    /// `signedDate` + 12 hours: Apple weighs an answer that arrives before.
    public var deadline: Int64
    /// Distinct CONSUMPTION_REQUEST notifications for the transaction (a redelivery counts once);
    /// 0 for Apple's decision on a transaction no request was seen for (yet).
    public var requests: Int = 1

    public var state: RefundRequestState
    /// While open: why no answer went yet (`no_consent`, `no_credentials`, `apple_unavailable`, ...).
    public var waitingFor: String?
    /// When `not_answered`: why (`no_consent`, `assigned_ownership`, `apple_refused`, ...).
    public var notAnsweredReason: String?
    /// Sends tried (each one PUT).
    public var attempts: Int = 0
    /// When the worker tries next (the due set's time for it); nil once no answer is due.
    public var nextAttemptAt: Int64?
    public var lastAttemptAt: Int64?
    /// Apple's (or the transport's) last refusal: `code` as the API client names it, Apple's number, the status.
    public var lastError: RefundAnswerError?
    /// The body sent, exactly (absent fields stay absent).
    public var sent: ConsumptionRequest?
    public var answeredAt: Int64?

    /// `refunded` or `declined`, once Apple decided.
    public var outcome: RefundOutcome?
    public var closedAt: Int64?
    public var outcomeNotificationUUID: String?

    /// Apple weighs answers within 12 hours of its request.
    public static let answerWindow: Int64 = 12 * 3_600_000
}

/// Where a refund request stands.
public enum RefundRequestState: String, Codable, Sendable, Equatable, CaseIterable {
    /// Recorded; an answer is due (or waits for consent, credentials or Apple).
    case open
    /// Apple accepted the consumption information.
    case answered
    /// No answer will be sent (`notAnsweredReason` says why).
    case notAnswered = "not_answered"
    /// Apple decided (`outcome`); whatever was answered stays in the record.
    case closed
}

/// Apple's decision on a refund request.
public enum RefundOutcome: String, Codable, Sendable, Equatable, CaseIterable {
    case refunded
    case declined
}

/// Why a send failed, as the record keeps it.
public struct RefundAnswerError: Codable, Sendable, Equatable {
    public var code: String
    public var errorCode: Int64?
    public var httpStatus: Int?

    public init(code: String, errorCode: Int64? = nil, httpStatus: Int? = nil) {
        self.code = code
        self.errorCode = errorCode
        self.httpStatus = httpStatus
    }
}

/// The reasons a request waits or is not answered: the words `waitingFor` and `notAnsweredReason` use.
public enum RefundWaitReason: String, Sendable, CaseIterable {
    /// The customer's consent to share consumption data is not recorded (set-consumption).
    case noConsent = "no_consent"
    /// Apple refuses consumption information for a seat of a group purchase.
    case assignedOwnership = "assigned_ownership"
    /// APPSTORE_KEY_ID, APPSTORE_ISSUER_ID and APPSTORE_PRIVATE_KEY are not set for the worker.
    case noCredentials = "no_credentials"
    /// Apple refused the API token (401): the key is wrong or revoked.
    case credentialsRefused = "credentials_refused"
    /// Apple answered 5xx or 429, or did not answer: retried at later runs.
    case appleUnavailable = "apple_unavailable"
    /// Apple refused the answer (a 4xx other than 429): final; `lastError` says what.
    case appleRefused = "apple_refused"
    /// Xcode or LocalTesting data: no server to answer.
    case unsupportedEnvironment = "unsupported_environment"
    /// Found after the deadline with nothing sent (the worker did not run in time).
    case deadlinePassed = "deadline_passed"
}
