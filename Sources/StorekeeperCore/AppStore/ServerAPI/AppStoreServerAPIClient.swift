import FoundationEssentials

/// Asks Apple's App Store Server API, over the `HTTPClient` port: one method per endpoint,
/// named as Apple's server libraries name them, each answering the typed model, the
/// environment that answered and the body as received.
///
/// Every attempt carries a fresh token. Retries follow `AppStoreAPIRetryPolicy`; the
/// `AppStoreAPIRequestGate` is asked before each attempt and told of each `Retry-After`.
/// Lookups by transaction id asked of production with `sandboxFallback` ask the sandbox
/// when production answers that the transaction does not exist.
///
/// [App Store Server API](https://developer.apple.com/documentation/appstoreserverapi)
public final class AppStoreServerAPIClient {
    public let credentials: AppStoreAPICredentials
    public let baseURLs: AppStoreAPIBaseURLs
    public let retryPolicy: AppStoreAPIRetryPolicy
    public let tokenLifetime: Duration
    private let http: any HTTPClient
    /// Dates each token by its real wall time (Apple checks `iat` against its own clock, even
    /// when decisions are pinned) and times the retries on its monotonic clock.
    private let time: any TimeSource
    /// A uniform number in 0..<1: the backoff's jitter.
    private let randomUnit: () -> Double
    private let gate: any AppStoreAPIRequestGate

    public static let userAgent = "Storekeeper/1 (App Store Server API)"

    public init(credentials: AppStoreAPICredentials, http: any HTTPClient,
                baseURLs: AppStoreAPIBaseURLs = .apple, time: any TimeSource,
                retryPolicy: AppStoreAPIRetryPolicy = .default,
                randomUnit: @escaping () -> Double = { Double.random(in: 0..<1) },
                gate: any AppStoreAPIRequestGate = OpenRequestGate(),
                tokenLifetime: Duration = AppStoreAPIToken.defaultLifetime) {
        self.credentials = credentials
        self.http = http
        self.baseURLs = baseURLs
        self.time = time
        self.retryPolicy = retryPolicy
        self.randomUnit = randomUnit
        self.gate = gate
        self.tokenLifetime = tokenLifetime
    }

    // MARK: Lookups by transaction id (sandbox fallback)

    /// [Get Transaction Info](https://developer.apple.com/documentation/appstoreserverapi/get-transaction-info)
    public func getTransactionInfo(transactionId: String, environment: AppStoreAPIEnvironment = .production,
                                   sandboxFallback: Bool = false) throws(AppStoreAPIError) -> AppStoreAPIResponse<TransactionInfoResponse> {
        try call(.getTransactionInfo(transactionId: transactionId),
                 environment: environment, sandboxFallback: sandboxFallback)
    }

    /// One page of the customer's history (v2). Pass the previous page's `revision` and the
    /// same `request` to get the next page.
    ///
    /// [Get Transaction History](https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history)
    public func getTransactionHistory(transactionId: String, revision: String? = nil,
                                      request: TransactionHistoryRequest = TransactionHistoryRequest(),
                                      environment: AppStoreAPIEnvironment = .production,
                                      sandboxFallback: Bool = false) throws(AppStoreAPIError) -> AppStoreAPIResponse<HistoryResponse> {
        try call(.getTransactionHistory(transactionId: transactionId, revision: revision, request: request),
                 environment: environment, sandboxFallback: sandboxFallback)
    }

    /// [Get All Subscription Statuses](https://developer.apple.com/documentation/appstoreserverapi/get-all-subscription-statuses)
    public func getAllSubscriptionStatuses(transactionId: String, status: [Int32]? = nil,
                                           environment: AppStoreAPIEnvironment = .production,
                                           sandboxFallback: Bool = false) throws(AppStoreAPIError) -> AppStoreAPIResponse<StatusResponse> {
        try call(.getAllSubscriptionStatuses(transactionId: transactionId, status: status),
                 environment: environment, sandboxFallback: sandboxFallback)
    }

    /// One page of refunded purchases (v2).
    ///
    /// [Get Refund History](https://developer.apple.com/documentation/appstoreserverapi/get-refund-history)
    public func getRefundHistory(transactionId: String, revision: String? = nil,
                                 environment: AppStoreAPIEnvironment = .production,
                                 sandboxFallback: Bool = false) throws(AppStoreAPIError) -> AppStoreAPIResponse<RefundHistoryResponse> {
        try call(.getRefundHistory(transactionId: transactionId, revision: revision),
                 environment: environment, sandboxFallback: sandboxFallback)
    }

    /// [Get App Transaction Info](https://developer.apple.com/documentation/appstoreserverapi/get-app-transaction-info)
    public func getAppTransactionInfo(transactionId: String, environment: AppStoreAPIEnvironment = .production,
                                      sandboxFallback: Bool = false) throws(AppStoreAPIError) -> AppStoreAPIResponse<AppTransactionInfoResponse> {
        try call(.getAppTransactionInfo(transactionId: transactionId),
                 environment: environment, sandboxFallback: sandboxFallback)
    }

    // MARK: Notifications

    /// One page of notification history.
    ///
    /// [Get Notification History](https://developer.apple.com/documentation/appstoreserverapi/get-notification-history)
    public func getNotificationHistory(paginationToken: String? = nil, request: NotificationHistoryRequest,
                                       environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<NotificationHistoryResponse> {
        try call(try .getNotificationHistory(paginationToken: paginationToken, request: request),
                 environment: environment, sandboxFallback: false)
    }

    /// [Request a Test Notification](https://developer.apple.com/documentation/appstoreserverapi/request-a-test-notification)
    public func requestTestNotification(environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<SendTestNotificationResponse> {
        try call(.requestTestNotification(),
                 environment: environment, sandboxFallback: false)
    }

    /// [Get Test Notification Status](https://developer.apple.com/documentation/appstoreserverapi/get-test-notification-status)
    public func getTestNotificationStatus(testNotificationToken: String,
                                          environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<CheckTestNotificationResponse> {
        try call(.getTestNotificationStatus(testNotificationToken: testNotificationToken),
                 environment: environment, sandboxFallback: false)
    }

    // MARK: Orders, extensions, consumption, account tokens

    /// [Look Up Order ID](https://developer.apple.com/documentation/appstoreserverapi/look-up-order-id)
    public func lookUpOrderId(orderId: String, environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<OrderLookupResponse> {
        try call(.lookUpOrderId(orderId: orderId),
                 environment: environment, sandboxFallback: false)
    }

    /// [Extend a Subscription Renewal Date](https://developer.apple.com/documentation/appstoreserverapi/extend-a-subscription-renewal-date)
    public func extendSubscriptionRenewalDate(originalTransactionId: String, request: ExtendRenewalDateRequest,
                                              environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<ExtendRenewalDateResponse> {
        try call(try .extendSubscriptionRenewalDate(originalTransactionId: originalTransactionId, request: request),
                 environment: environment, sandboxFallback: false)
    }

    /// [Extend Subscription Renewal Dates for All Active Subscribers](https://developer.apple.com/documentation/appstoreserverapi/extend-subscription-renewal-dates-for-all-active-subscribers)
    public func extendRenewalDateForAllActiveSubscribers(request: MassExtendRenewalDateRequest,
                                                         environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<MassExtendRenewalDateResponse> {
        try call(try .extendRenewalDateForAllActiveSubscribers(request: request),
                 environment: environment, sandboxFallback: false)
    }

    /// [Get Status of Subscription Renewal Date Extensions](https://developer.apple.com/documentation/appstoreserverapi/get-status-of-subscription-renewal-date-extensions)
    public func getStatusOfSubscriptionRenewalDateExtensions(requestIdentifier: String, productId: String,
                                                             environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<MassExtendRenewalDateStatusResponse> {
        try call(.getStatusOfSubscriptionRenewalDateExtensions(requestIdentifier: requestIdentifier, productId: productId),
                 environment: environment, sandboxFallback: false)
    }

    /// Send Consumption Information (v2: `PUT /inApps/v2/transactions/consumption/{transactionId}`, 202).
    ///
    /// [Send Consumption Information](https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information)
    public func sendConsumptionInformation(transactionId: String, request: ConsumptionRequest,
                                           environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<AppStoreAPINoContent> {
        try call(try .sendConsumptionInformation(transactionId: transactionId, request: request),
                 environment: environment, sandboxFallback: false)
    }

    /// [Set App Account Token](https://developer.apple.com/documentation/appstoreserverapi/set-app-account-token)
    public func setAppAccountToken(originalTransactionId: String, request: UpdateAppAccountTokenRequest,
                                   environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<AppStoreAPINoContent> {
        try call(try .setAppAccountToken(originalTransactionId: originalTransactionId, request: request),
                 environment: environment, sandboxFallback: false)
    }

    // MARK: The call

    /// Sends `operation` with retries (and the sandbox fallback when asked and allowed) and
    /// decodes the answer as `Model`.
    public func call<Model: Decodable & Sendable>(_ operation: AppStoreAPIOperation,
                                                  environment: AppStoreAPIEnvironment,
                                                  sandboxFallback: Bool,
                                                  as model: Model.Type = Model.self) throws(AppStoreAPIError) -> AppStoreAPIResponse<Model> {
        let raw = try send(operation, environment: environment, sandboxFallback: sandboxFallback)
        if Model.self == AppStoreAPINoContent.self, let none = AppStoreAPINoContent() as? Model {
            return AppStoreAPIResponse(value: none, environment: raw.environment, body: raw.body, attempts: raw.attempts)
        }
        do {
            let value = try JSONDecoder().decode(Model.self, from: Data(raw.body))
            return AppStoreAPIResponse(value: value, environment: raw.environment, body: raw.body, attempts: raw.attempts)
        } catch {
            throw AppStoreAPIError(.invalidResponse, kind: .invalidResponse,
                                   reason: "\(operation.name): the answer is not the documented JSON (\(error))",
                                   httpStatus: 200, attempts: raw.attempts)
        }
    }

    /// Sends `operation` and answers the successful body as received.
    public func send(_ operation: AppStoreAPIOperation, environment: AppStoreAPIEnvironment,
                     sandboxFallback: Bool) throws(AppStoreAPIError) -> AppStoreAPIResponse<[UInt8]> {
        let first = attempt(operation, environment: environment, attemptsBefore: 0)
        switch first {
        case .success(let answer):
            return answer
        case .failure(let error):
            guard sandboxFallback, environment == .production, operation.isLookupByTransactionId,
                  let code = error.errorCode, AppStoreAPIErrorCode.notFoundInEnvironment.contains(code) else {
                throw error
            }
            return try attempt(operation, environment: .sandbox, attemptsBefore: error.attempts).get()
        }
    }

    private func attempt(_ operation: AppStoreAPIOperation, environment: AppStoreAPIEnvironment,
                         attemptsBefore: Int) -> Result<AppStoreAPIResponse<[UInt8]>, AppStoreAPIError> {
        let started = time.monotonic()
        var number = 0
        var lastError: AppStoreAPIError?
        while true {
            number += 1
            let attempt = AppStoreAPIAttempt(environment: environment, method: operation.method,
                                             operation: operation.name, number: number)
            let left = retryPolicy.deadline - (time.monotonic() - started)
            guard left > .zero else {
                return .failure(deadlineError(operation, lastError, attempts: attemptsBefore + number - 1))
            }
            do {
                try gate.willSend(attempt)
            } catch {
                var refused = error
                refused.attempts = attemptsBefore + number - 1
                return .failure(refused)
            }
            let outcome = sendOnce(operation, environment: environment, timeout: min(retryPolicy.attemptTimeout, left))
            var error: AppStoreAPIError
            switch outcome {
            case .success(let body):
                return .success(AppStoreAPIResponse(value: body, environment: environment, body: body,
                                                    attempts: attemptsBefore + number))
            case .failure(let failure):
                error = failure
            }
            error.attempts = attemptsBefore + number
            lastError = error
            guard error.isRetryable, number < retryPolicy.maximumAttempts else { return .failure(error) }

            let wait: Duration
            if let retryAfter = error.retryAfter {
                gate.didReceiveRetryAfter(retryAfter, for: attempt)
                guard retryAfter <= retryPolicy.maximumRetryAfter else { return .failure(error) }
                wait = retryAfter
            } else {
                wait = retryPolicy.backoff(retry: number, unit: randomUnit())
            }
            // A wait that would end past the deadline is not worth starting.
            guard time.monotonic() - started + wait < retryPolicy.deadline else { return .failure(error) }
            time.sleep(for: wait)
        }
    }

    private func sendOnce(_ operation: AppStoreAPIOperation, environment: AppStoreAPIEnvironment,
                          timeout: Duration) -> Result<[UInt8], AppStoreAPIError> {
        let token: String
        do {
            token = try AppStoreAPIToken.make(credentials: credentials, issuedAt: time.realNow(), lifetime: tokenLifetime)
        } catch {
            return .failure(error)
        }
        var headers: [(String, String)] = [
            ("Authorization", "Bearer " + token),
            ("Accept", "application/json"),
            ("User-Agent", Self.userAgent),
        ]
        if operation.body != nil { headers.append(("Content-Type", operation.contentType)) }
        let request = HTTPRequest(method: operation.method,
                                  url: baseURLs.url(for: environment) + operation.pathAndQuery,
                                  headers: headers, body: operation.body ?? [],
                                  connectTimeout: min(retryPolicy.connectTimeout, timeout), timeout: timeout)
        let response: HTTPResponse
        do {
            response = try http.send(request)
        } catch {
            return .failure(.transport(error))
        }
        if (200..<300).contains(response.status) { return .success(response.body) }
        return .failure(.fromResponse(status: response.status, body: response.body,
                                      retryAfter: Self.retryAfter(response.header("retry-after"))))
    }

    private func deadlineError(_ operation: AppStoreAPIOperation, _ last: AppStoreAPIError?, attempts: Int) -> AppStoreAPIError {
        AppStoreAPIError(.deadlineExceeded, kind: .deadlineExceeded,
                         reason: "\(operation.name): no answer within \(retryPolicy.deadline)" + (last.map { "; last: \($0.code)" } ?? ""),
                         errorCode: last?.errorCode, httpStatus: last?.httpStatus, attempts: attempts)
    }

    /// `Retry-After` in seconds; an HTTP date or nonsense is ignored (the backoff applies).
    static func retryAfter(_ value: String?) -> Duration? {
        guard let value, let seconds = Int64(String(value.filter { $0 != " " && $0 != "\t" })), seconds >= 0 else { return nil }
        return .seconds(seconds)
    }
}
