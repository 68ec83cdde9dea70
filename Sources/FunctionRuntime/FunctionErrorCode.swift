import StorekeeperCore

/// Storekeeper's own wire codes that the runtime and the handlers answer with, each with
/// its disposition (snake_case). Codes of the other vocabularies (Apple's, OAuth's) reach an
/// answer through `FunctionError(_:)` from their own `CodedError`.
public enum FunctionErrorCode: String, ErrorKind {
    case invalidRequest = "invalid_request"
    case invalidJSON = "invalid_json"
    case emptyRequest = "empty_request"
    case unknownField = "unknown_field"
    case unknownOperation = "unknown_operation"
    case unknownParameter = "unknown_parameter"
    case unauthorized = "unauthorized"
    /// A Sign in with Apple session token that names no open session.
    case invalidSession = "invalid_session"
    /// The user revoked Sign in with Apple for the app; every session was ended.
    case consentRevoked = "consent_revoked"
    case forbidden = "forbidden"
    case notFound = "not_found"
    /// get-customer: no purchase, user or customer record matches the id asked about.
    case customerNotFound = "customer_not_found"
    case methodNotAllowed = "method_not_allowed"
    case payloadTooLarge = "payload_too_large"
    case temporarilyUnavailable = "temporarily_unavailable"
    /// The store failed: the one answer for every store failure but its configuration.
    case storeUnavailable = "store_unavailable"
    /// A shared rate limit has no token now (with `Retry-After`).
    case rateLimited = "rate_limited"
    case configurationError = "configuration_error"
    case internalError = "internal_error"

    public var disposition: ErrorDisposition {
        switch self {
        case .invalidRequest, .invalidJSON, .emptyRequest, .unknownField, .unknownOperation, .unknownParameter: .badInput
        case .unauthorized, .invalidSession, .consentRevoked: .caller(.unauthorized)
        case .forbidden: .caller(.forbidden)
        case .notFound, .customerNotFound: .caller(.notFound)
        case .methodNotAllowed: .caller(.methodNotAllowed)
        case .payloadTooLarge: .caller(.payloadTooLarge)
        case .temporarilyUnavailable, .storeUnavailable: .retryLater
        case .rateLimited: .throttled
        case .configurationError: .configuration
        case .internalError: .internalFailure
        }
    }
}
