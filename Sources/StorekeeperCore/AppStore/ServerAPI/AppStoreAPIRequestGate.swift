/// A hook around every attempt, so a rate limit can be shared by every process through the
/// store: asked before each attempt (it may wait, or refuse with a retryable error) and told
/// of every `Retry-After` Apple sends.
public protocol AppStoreAPIRequestGate: AnyObject {
    func willSend(_ attempt: AppStoreAPIAttempt) throws(AppStoreAPIError)
    func didReceiveRetryAfter(_ delay: Duration, for attempt: AppStoreAPIAttempt)
}

/// What is about to be sent.
public struct AppStoreAPIAttempt: Sendable, Equatable {
    public let environment: AppStoreAPIEnvironment
    public let method: String
    /// The path template's operation name, e.g. `getTransactionHistory`.
    public let operation: String
    /// 1 for the first attempt.
    public let number: Int
}

/// The default: no shared limit.
public final class OpenRequestGate: AppStoreAPIRequestGate {
    public init() {}
    public func willSend(_ attempt: AppStoreAPIAttempt) throws(AppStoreAPIError) {}
    public func didReceiveRetryAfter(_ delay: Duration, for attempt: AppStoreAPIAttempt) {}
}
