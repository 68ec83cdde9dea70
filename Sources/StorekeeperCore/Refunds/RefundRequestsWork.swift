/// What one worker run did about refund requests (process-notifications' `refundRequests`).
public struct RefundRequestsWork: Codable, Sendable, Equatable {
    /// CONSUMPTION_REQUEST notifications recorded as requests (a redelivery is not counted).
    public var recorded = 0
    /// Requests closed by REFUND or REFUND_DECLINED.
    public var closed = 0
    /// REFUND or REFUND_DECLINED for a transaction without a recorded request (Apple refunds
    /// without asking too): the decision is kept alone, in no report, for a request met later.
    public var withoutRequest = 0
    /// Answers Apple accepted.
    public var answered = 0
    /// Requests looked at and left due: waiting for consent, credentials or Apple.
    public var waiting = 0
    /// Requests that will not be answered (no consent by the deadline, ASSIGNED, Apple's 4xx, ...).
    public var notAnswered = 0
    /// Of `waiting`, those waiting because the worker has no API key (APPSTORE_KEY_ID, ...).
    public var noCredentials = 0

    public init() {}

    mutating func count(_ notice: RefundRequestRepository.Notice?) {
        switch notice {
        case .recorded?: recorded += 1
        case .closed?: closed += 1
        case .withoutRequest?: withoutRequest += 1
        case .duplicate?, .alreadyClosed?, nil: break
        }
    }

    mutating func add(_ other: RefundRequestsWork) {
        recorded += other.recorded
        closed += other.closed
        withoutRequest += other.withoutRequest
        answered += other.answered
        waiting += other.waiting
        notAnswered += other.notAnswered
        noCredentials += other.noCredentials
    }
}
