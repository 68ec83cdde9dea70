import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// The App Store Server API client seen through the ports reconciliation and recovery use:
/// they decide, the client asks Apple.

/// Get All Subscription Statuses as a `SubscriptionStatusLookup`.
final class APIStatusLookup: SubscriptionStatusLookup {
    private let client: AppStoreServerAPIClient
    private let sandboxFallback: Bool

    init(client: AppStoreServerAPIClient, sandboxFallback: Bool) {
        self.client = client
        self.sandboxFallback = sandboxFallback
    }

    func latestTransactions(of originalTransactionId: String) throws(SubscriptionStatusLookupFailure) -> [AppleSubscriptionState] {
        let response: AppStoreAPIResponse<StatusResponse>
        do {
            response = try client.getAllSubscriptionStatuses(transactionId: originalTransactionId, sandboxFallback: sandboxFallback)
        } catch {
            throw error.lookupFailure
        }
        return (response.value.data ?? []).flatMap { group in
            (group.lastTransactions ?? []).map { item in
                AppleSubscriptionState(
                    originalTransactionId: item.originalTransactionId ?? originalTransactionId,
                    status: item.rawStatus.map(Int.init),
                    signedTransactionInfo: item.signedTransactionInfo,
                    signedRenewalInfo: item.signedRenewalInfo)
            }
        }
    }
}

/// Get Notification History as a `NotificationHistorySource`.
final class APINotificationHistory: NotificationHistorySource {
    private let client: AppStoreServerAPIClient
    private let environment: AppStoreAPIEnvironment

    init(client: AppStoreServerAPIClient, environment: AppStoreAPIEnvironment) {
        self.client = client
        self.environment = environment
    }

    func page(_ query: NotificationHistoryRequest, paginationToken: String?) throws(NotificationHistoryFailure) -> NotificationHistoryPage {
        let response: AppStoreAPIResponse<NotificationHistoryResponse>
        do {
            response = try client.getNotificationHistory(paginationToken: paginationToken, request: query, environment: environment)
        } catch {
            throw NotificationHistoryFailure(code: error.code, reason: error.reason, disposition: error.disposition, origin: error.origin)
        }
        let items = (response.value.notificationHistory ?? []).compactMap { item -> NotificationHistoryPage.Item? in
            guard let payload = item.signedPayload else { return nil }
            return NotificationHistoryPage.Item(
                signedPayload: payload,
                sendAttemptResults: (item.sendAttempts ?? []).compactMap(\.rawSendAttemptResult))
        }
        return NotificationHistoryPage(items: items, paginationToken: response.value.paginationToken,
                                       hasMore: response.value.hasMore ?? false)
    }
}

extension AppStoreAPIError {
    /// How reconciliation treats a failed lookup.
    var lookupFailure: SubscriptionStatusLookupFailure {
        if kind == .unauthorized {
            return SubscriptionStatusLookupFailure(.misconfigured, code: code, reason: reason)
        }
        if code == SharedRateLimitGate.pastBudgetCode {
            return SubscriptionStatusLookupFailure(.outOfTime, code: code, reason: reason)
        }
        if code == SharedRateLimitGate.storeFailureCode {
            return SubscriptionStatusLookupFailure(.storeUnavailable, code: code, reason: reason)
        }
        if isRetryable || kind == .transport || kind == .deadlineExceeded {
            return SubscriptionStatusLookupFailure(.unavailable, code: code, reason: reason)
        }
        if httpStatus == 404 {
            return SubscriptionStatusLookupFailure(.notFound, code: code, reason: reason)
        }
        return SubscriptionStatusLookupFailure(.rejected, code: code, reason: reason)
    }
}

/// The shared token bucket as the client's gate: before every attempt, wait for a token that
/// every process draws from; on every Retry-After, hold every process back. Waits past the
/// run's deadline are refused with a retryable error instead of sleeping through the budget.
///
/// The bucket reads the real wall time, which STOREKEEPER_NOW never pins: requests are paced
/// in real seconds even when decisions are pinned for verification.
final class SharedRateLimitGate: AppStoreAPIRequestGate {
    private let limiter: SharedRateLimiter
    private let time: any TimeSource
    private let deadline: Duration
    private(set) var waits = 0
    /// The refusal of a wait past the budget: the run is out of time, Apple is not down.
    static let pastBudgetCode = AppStoreAPIError.OwnCode.rateLimitWaitPastBudget.rawValue
    /// The shared bucket's store failed: our outage, not Apple's.
    static let storeFailureCode = AppStoreAPIError.OwnCode.rateLimitStoreUnavailable.rawValue

    private let log: Logger?

    /// `deadline` is on `time`'s monotonic clock.
    init(limiter: SharedRateLimiter, time: any TimeSource, deadline: Duration, log: Logger? = nil) {
        self.limiter = limiter
        self.time = time
        self.deadline = deadline
        self.log = log
    }

    /// The bucket's store failed: a retryable error whose reason names no store, host, path
    /// or message (answers and reports carry it); the details go to the log.
    static func storeFailure(_ error: StoreError, log: Logger?) -> AppStoreAPIError {
        log?.error("store_failed", ["code": error.code, "reason": error.reason, "during": "shared rate limit"])
        return AppStoreAPIError(kind: .invalidRequest, code: storeFailureCode,
                                reason: "the store that keeps the shared rate limit is unavailable", isRetryable: true)
    }

    func willSend(_ attempt: AppStoreAPIAttempt) throws(AppStoreAPIError) {
        while true {
            let decision: SharedRateLimiter.Decision
            do {
                decision = try limiter.tryAcquire(now: time.realNow())
            } catch {
                throw Self.storeFailure(error, log: log)
            }
            guard case .wait(let delay) = decision else { return }
            guard time.monotonic() + delay < deadline else {
                throw AppStoreAPIError(kind: .deadlineExceeded, code: Self.pastBudgetCode,
                                       reason: "the shared rate limit would wait past this run's time budget", isRetryable: true)
            }
            waits += 1
            time.sleep(for: delay)
        }
    }

    func didReceiveRetryAfter(_ delay: Duration, for attempt: AppStoreAPIAttempt) {
        // Best effort: if the store cannot take it, this process still waits (the client does).
        try? limiter.holdBack(for: delay, now: time.realNow())
    }
}
