/// Where reconciliation asks "what does Apple say about this subscription?": Get All
/// Subscription Statuses, in production through the App Store Server API client. A port, so
/// the reconciler's decisions are tested without a server and the client stays unaware of
/// reconciliation.
public protocol SubscriptionStatusLookup {
    /// Apple's latest signed transaction and renewal info for every subscription that shares
    /// a subscription group with `originalTransactionId`.
    func latestTransactions(of originalTransactionId: String) throws(SubscriptionStatusLookupFailure) -> [AppleSubscriptionState]
}

/// One entry of Get All Subscription Statuses' `lastTransactions`, still signed.
public struct AppleSubscriptionState: Sendable, Equatable {
    public var originalTransactionId: String
    /// Apple's status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public var status: Int?
    public var signedTransactionInfo: String?
    public var signedRenewalInfo: String?

    public init(originalTransactionId: String, status: Int?, signedTransactionInfo: String?, signedRenewalInfo: String?) {
        self.originalTransactionId = originalTransactionId
        self.status = status
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
    }
}

/// Why Apple gave no answer. Nothing is changed for the subscriber in any of these cases.
public struct SubscriptionStatusLookupFailure: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// 5xx, timeout, connection failure, or still rate limited after the client's retries:
        /// ask again on the next run.
        case unavailable
        /// Apple does not know the transaction (in any accepted environment).
        case notFound
        /// A refusal about this subscriber (a malformed id): counted, the walk goes on.
        case rejected
        /// Apple refused the API key itself: every request would fail, so the run stops.
        case misconfigured
        /// Nothing was asked: the run's time budget would end before the request could go (a
        /// rate-limit wait past it). The run stops as out of time, not as Apple being down.
        case outOfTime
        /// The store Storekeeper itself depends on failed (the shared rate limit lives there):
        /// our outage, not Apple's; the run stops as on any store failure.
        case storeUnavailable
    }

    public var kind: Kind
    /// Apple's error name or the transport's code, for the report.
    public var code: String
    public var reason: String

    public init(_ kind: Kind, code: String, reason: String) {
        self.kind = kind
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }
}
