import StorekeeperCore

/// An error the runtime knows how to answer: a stable wire `code`, a message that is safe
/// to show the caller and to log, and a `kind` that fixes the HTTP status and exit code.
///
/// Two errors are equal when their codes are: the code is the contract, the message is prose.
public struct FunctionError: CodedError, Equatable {
    /// The family an error belongs to, which decides its HTTP status and sysexits code.
    public enum Kind: String, Sendable, Equatable {
        case badInput
        case unauthorized
        case forbidden
        case notFound
        case methodNotAllowed
        case payloadTooLarge
        case temporary
        case configuration
        case internalError

        public var status: Int {
            switch self {
            case .badInput: 400
            case .unauthorized: 401
            case .forbidden: 403
            case .notFound: 404
            case .methodNotAllowed: 405
            case .payloadTooLarge: 413
            case .temporary: 503
            case .configuration, .internalError: 500
            }
        }

        /// sysexits: every caller mistake is EX_DATAERR (65) so a cron wrapper has one code to
        /// test for "do not retry"; 75 means retry; 78 means fix the configuration.
        public var exitCode: Int32 {
            switch self {
            case .badInput, .unauthorized, .forbidden, .notFound, .methodNotAllowed, .payloadTooLarge: 65
            case .temporary: 75
            case .configuration: 78
            case .internalError: 70
            }
        }
    }

    public let code: String
    public let message: String
    public let kind: Kind

    public init(code: String, message: String, kind: Kind) {
        self.code = code
        self.message = message
        self.kind = kind
    }

    public var reason: String { message }
    public var isRetryable: Bool { kind == .temporary }

    public static func == (lhs: FunctionError, rhs: FunctionError) -> Bool {
        lhs.code == rhs.code
    }

    public static func badInput(code: String = "invalid_request", message: String) -> FunctionError {
        FunctionError(code: code, message: message, kind: .badInput)
    }

    public static func unauthorized(code: String = "unauthorized", message: String = "a valid bearer token is required") -> FunctionError {
        FunctionError(code: code, message: message, kind: .unauthorized)
    }

    public static func forbidden(code: String = "forbidden", message: String) -> FunctionError {
        FunctionError(code: code, message: message, kind: .forbidden)
    }

    public static func notFound(code: String = "not_found", message: String) -> FunctionError {
        FunctionError(code: code, message: message, kind: .notFound)
    }

    public static func methodNotAllowed(code: String = "method_not_allowed", message: String) -> FunctionError {
        FunctionError(code: code, message: message, kind: .methodNotAllowed)
    }

    public static func payloadTooLarge(code: String = "payload_too_large", message: String) -> FunctionError {
        FunctionError(code: code, message: message, kind: .payloadTooLarge)
    }

    public static func temporary(code: String = "temporarily_unavailable", message: String) -> FunctionError {
        FunctionError(code: code, message: message, kind: .temporary)
    }

    /// A missing or bad environment variable; name the variable, never its value.
    public static func configuration(_ message: String) -> FunctionError {
        FunctionError(code: "configuration_error", message: message, kind: .configuration)
    }

    public static func internalError(code: String = "internal_error", message: String = "internal error") -> FunctionError {
        FunctionError(code: code, message: message, kind: .internalError)
    }
}
