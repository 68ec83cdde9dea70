import FoundationEssentials

/// Why an App Store Server API call failed: Apple's answer (`errorCode` with Apple's name),
/// an HTTP status without Apple's body, a refused token, the transport, or the call's deadline.
///
/// `code` is Apple's name for the error code (`TransactionIdNotFoundError`); for failures
/// Apple did not name it is `UnauthorizedError` (401: Apple refused the token),
/// `HTTP_<status>`, the transport's code (`http_timeout`, ...), `DeadlineExceeded`,
/// `InvalidResponse` or `TokenSigningFailed`.
///
/// [Error codes](https://developer.apple.com/documentation/appstoreserverapi/error-codes)
public struct AppStoreAPIError: CodedError, Equatable {
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
    public let isRetryable: Bool
    /// Apple's numeric `errorCode`, when Apple sent one.
    public let errorCode: Int64?
    /// The HTTP status, when an answer came back.
    public let httpStatus: Int?
    /// Apple's `Retry-After`, when a 429 carried one.
    public let retryAfter: Duration?
    /// Attempts made before giving up (1 when the first answer was final).
    public var attempts: Int

    public init(kind: Kind, code: String, reason: String, isRetryable: Bool, errorCode: Int64? = nil,
                httpStatus: Int? = nil, retryAfter: Duration? = nil, attempts: Int = 1) {
        self.kind = kind
        self.code = code
        self.reason = reason
        self.isRetryable = isRetryable
        self.errorCode = errorCode
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
        self.attempts = attempts
    }

    /// Apple's error body, or the HTTP status when there is none.
    static func fromResponse(status: Int, body: [UInt8], retryAfter: Duration?) -> AppStoreAPIError {
        let payload = try? JSONDecoder().decode(ErrorPayload.self, from: Data(body))
        if status == 401 {
            return AppStoreAPIError(kind: .unauthorized, code: "UnauthorizedError",
                                    reason: "Apple refused the API token (check key id, issuer id, bundle id and the .p8 key)",
                                    isRetryable: false, httpStatus: status)
        }
        if let errorCode = payload?.errorCode {
            let entry = AppStoreAPIErrorCode.entry(errorCode)
            let retryable = (entry?.isRetryable ?? false) || status == 429 || status >= 500
            return AppStoreAPIError(kind: .apple, code: entry?.name ?? "AppStoreError\(errorCode)",
                                    reason: "HTTP \(status): \(payload?.errorMessage ?? "no message")",
                                    isRetryable: retryable, errorCode: errorCode, httpStatus: status,
                                    retryAfter: retryAfter)
        }
        let retryable = status == 429 || status >= 500
        let code = status == 429 ? "RateLimitExceededError" : "HTTP_\(status)"
        return AppStoreAPIError(kind: .httpStatus, code: code, reason: "HTTP \(status) without Apple's error body",
                                isRetryable: retryable, errorCode: status == 429 ? AppStoreAPIErrorCode.rateLimitExceeded : nil,
                                httpStatus: status, retryAfter: retryAfter)
    }

    static func transport(_ error: HTTPError) -> AppStoreAPIError {
        AppStoreAPIError(kind: .transport, code: error.code, reason: error.reason, isRetryable: error.isRetryable)
    }

    public static func == (lhs: AppStoreAPIError, rhs: AppStoreAPIError) -> Bool { lhs.code == rhs.code }
}
