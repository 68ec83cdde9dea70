import FoundationEssentials

/// Why an App Store Server API call failed: Apple's answer (`errorCode` with Apple's name),
/// an HTTP status without Apple's body, a refused token, the transport, or the call's deadline.
///
/// `code` is Apple's name for the error code (`TransactionIdNotFoundError`); for failures
/// Apple did not name it is one of Storekeeper's own (`OwnCode`: `api_token_refused` for a
/// 401, `deadline_exceeded`, ...), `http_<status>` for a status without Apple's body,
/// `apple_error_<errorCode>` for a code this version does not know, or the transport's code
/// (`http_timeout`, ...).
///
/// It conforms to `CodedError` directly rather than being a `DomainError`: its code is open
/// (Apple adds codes) and it carries what Apple said (`errorCode`, `httpStatus`, attempts),
/// which its answers show as `details`. The disposition follows Apple's answer: retryable is
/// retry later, a refused token is `upstreamRefused`, an answer that is not Apple's JSON is
/// `upstreamFailed`, a 404 is the caller's `notFound`, any other refusal the caller's bad input.
///
/// [Error codes](https://developer.apple.com/documentation/appstoreserverapi/error-codes)
public struct AppStoreAPIError: CodedError, Equatable, Sendable {
    /// Storekeeper's codes for failures Apple does not name, with the disposition each is
    /// made with (snake_case; Apple's names come from `AppStoreAPIErrorCode`).
    public enum OwnCode: String, ErrorKind {
        /// 401: Apple refused the API token (key id, issuer id, bundle id or the .p8 key).
        case apiTokenRefused = "api_token_refused"
        /// The call's total deadline passed.
        case deadlineExceeded = "deadline_exceeded"
        /// A 2xx answer whose body is not the documented JSON.
        case invalidResponse = "invalid_response"
        /// A request body that cannot be encoded.
        case invalidRequest = "invalid_request"
        /// The API token could not be signed with the configured key.
        case tokenSigningFailed = "token_signing_failed"
        /// The shared rate limit would wait past the run's time budget.
        case rateLimitWaitPastBudget = "rate_limit_wait_past_budget"
        /// The store that keeps the shared rate limit failed.
        case rateLimitStoreUnavailable = "rate_limit_store_unavailable"
        /// migrate-receipt's shared bucket has no token now (answered as `rate_limited`).
        case migrationRateLimited = "migration_rate_limited"

        public var disposition: ErrorDisposition {
            switch self {
            case .apiTokenRefused: .upstreamRefused
            case .deadlineExceeded, .rateLimitWaitPastBudget, .rateLimitStoreUnavailable, .migrationRateLimited: .retryLater
            case .invalidResponse: .upstreamFailed
            case .invalidRequest, .tokenSigningFailed: .badInput
            }
        }
    }


    public enum Kind: String, Sendable, Equatable {
        /// Apple answered with an error body (`errorCode`, `errorMessage`).
        case apple
        /// 401: the token was refused (key, issuer, bundle id, audience or expiry).
        case unauthorized
        /// An HTTP error status without Apple's error body.
        case httpStatus
        /// No HTTP answer (connection, timeout, TLS).
        case transport
        /// The call's total deadline passed before an answer that ends it.
        case deadlineExceeded
        /// A 2xx answer whose body is not the documented JSON.
        case invalidResponse
        /// The request could not be made (bad key, a parameter that cannot be sent).
        case invalidRequest
    }

    public let kind: Kind
    public let code: String
    public let reason: String
    public private(set) var disposition: ErrorDisposition
    public let origin: ErrorOrigin
    /// Apple's numeric `errorCode`, when Apple sent one.
    public let errorCode: Int64?
    /// The HTTP status, when an answer came back.
    public let httpStatus: Int?
    /// Apple's `Retry-After`, when a 429 carried one.
    public let retryAfter: Duration?
    /// Attempts made before giving up (1 when the first answer was final).
    public var attempts: Int

    public init(kind: Kind, code: String, reason: String, isRetryable: Bool, errorCode: Int64? = nil,
                httpStatus: Int? = nil, retryAfter: Duration? = nil, attempts: Int = 1,
                fileID: String = #fileID, line: Int = #line) {
        self.kind = kind
        self.code = code
        self.reason = reason
        self.disposition = Self.disposition(kind: kind, isRetryable: isRetryable, httpStatus: httpStatus)
        self.origin = ErrorOrigin(fileID: fileID, line: line)
        self.errorCode = errorCode
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
        self.attempts = attempts
    }

    /// One of Storekeeper's own codes, retryable as its disposition says.
    public init(_ own: OwnCode, kind: Kind, reason: String, errorCode: Int64? = nil, httpStatus: Int? = nil,
                attempts: Int = 1, fileID: String = #fileID, line: Int = #line) {
        self.init(kind: kind, code: own.rawValue, reason: reason, isRetryable: own.disposition.isRetryable,
                  errorCode: errorCode, httpStatus: httpStatus, attempts: attempts, fileID: fileID, line: line)
    }

    /// How Apple's answer is to be taken (see the type's doc comment).
    public static func disposition(kind: Kind, isRetryable: Bool, httpStatus: Int?) -> ErrorDisposition {
        if isRetryable { return .retryLater }
        switch kind {
        case .transport: return .upstreamFailed
        case .unauthorized: return .upstreamRefused
        case .invalidResponse: return .upstreamFailed
        default: return httpStatus == 404 ? .caller(.notFound) : .badInput
        }
    }

    /// Apple's answers are retried when Apple calls the code retryable, and for every 429 and
    /// 5xx whatever the code (GeneralInternalError included).
    static func isRetryable(_ byApple: Bool, status: Int) -> Bool {
        byApple || status == 429 || status >= 500
    }

    /// What an answer shows beside `code` and `message`.
    public var details: [ErrorDetail] {
        var details: [ErrorDetail] = []
        if let errorCode { details.append(ErrorDetail("errorCode", .integer(errorCode))) }
        if let httpStatus { details.append(ErrorDetail("httpStatus", .integer(Int64(httpStatus)))) }
        details.append(ErrorDetail("retryable", .boolean(isRetryable)))
        details.append(ErrorDetail("attempts", .integer(Int64(attempts))))
        return details
    }

    /// Apple's error body, or the HTTP status when there is none.
    static func fromResponse(status: Int, body: [UInt8], retryAfter: Duration?) -> AppStoreAPIError {
        let payload = try? JSONDecoder().decode(ErrorPayload.self, from: Data(body))
        if status == 401 {
            return AppStoreAPIError(.apiTokenRefused, kind: .unauthorized,
                                    reason: "Apple refused the API token (check key id, issuer id, bundle id and the .p8 key)",
                                    httpStatus: status)
        }
        if let errorCode = payload?.errorCode {
            let entry = AppStoreAPIErrorCode.entry(errorCode)
            let retryable = isRetryable(entry?.isRetryable ?? false, status: status)
            return AppStoreAPIError(kind: .apple, code: entry?.name ?? "apple_error_\(errorCode)",
                                    reason: "HTTP \(status): \(payload?.errorMessage ?? "no message")",
                                    isRetryable: retryable, errorCode: errorCode, httpStatus: status,
                                    retryAfter: retryAfter)
        }
        let retryable = isRetryable(false, status: status)
        let code = status == 429 ? "RateLimitExceededError" : "http_\(status)"
        return AppStoreAPIError(kind: .httpStatus, code: code, reason: "HTTP \(status) without Apple's error body",
                                isRetryable: retryable, errorCode: status == 429 ? AppStoreAPIErrorCode.rateLimitExceeded : nil,
                                httpStatus: status, retryAfter: retryAfter)
    }

    static func transport(_ error: HTTPError) -> AppStoreAPIError {
        // The transport's own disposition: a URL libcurl refuses is our configuration, not Apple's.
        var wrapped = AppStoreAPIError(kind: .transport, code: error.code, reason: error.reason, isRetryable: error.isRetryable,
                                       fileID: error.origin.fileID, line: error.origin.line)
        wrapped.disposition = error.disposition
        return wrapped
    }

    public static func == (lhs: AppStoreAPIError, rhs: AppStoreAPIError) -> Bool { lhs.code == rhs.code }
}
