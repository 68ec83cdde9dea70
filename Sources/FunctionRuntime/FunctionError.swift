import StorekeeperCore

/// An error as the runtime answers it: a stable wire `code`, a message that is safe to show
/// the caller and to log, a `disposition` that fixes the HTTP status and exit code (in
/// `ErrorDisposition+Answer.swift`), where it was made (logged, never answered) and any
/// `details` the error object carries beside code and message.
///
/// Storekeeper's own codes are `FunctionErrorCode`s; any other `CodedError` (Apple's,
/// OAuth's) becomes one with `init(_:)`, keeping its code, disposition and origin.
///
/// Two errors are equal when their codes are: the code is the contract, the message is prose.
public struct FunctionError: CodedError, Equatable {
    public let code: String
    public let message: String
    public let disposition: ErrorDisposition
    public let origin: ErrorOrigin
    public let details: [ErrorDetail]

    public init(_ code: FunctionErrorCode, _ message: String, fileID: String = #fileID, line: Int = #line) {
        self.init(code: code.rawValue, message: message, disposition: code.disposition, details: [],
                  origin: ErrorOrigin(fileID: fileID, line: line))
    }

    /// Another vocabulary's error, answered with its own code and disposition; its reason
    /// becomes the message.
    public init(_ error: some CodedError) {
        self.init(code: error.code, message: error.reason, disposition: error.disposition, details: error.details,
                  origin: error.origin)
    }

    /// For the runtime's own re-readings of an error (a value that came in the request is
    /// the caller's input, whatever its vocabulary says).
    init(code: String, message: String, disposition: ErrorDisposition, details: [ErrorDetail], origin: ErrorOrigin) {
        self.code = code
        self.message = message
        self.disposition = disposition
        self.details = details
        self.origin = origin
    }

    /// The same error with another message (what an anonymous HTTP caller may see).
    func replacingMessage(_ message: String) -> FunctionError {
        FunctionError(code: code, message: message, disposition: disposition, details: details, origin: origin)
    }

    public var reason: String { message }

    public static func == (lhs: FunctionError, rhs: FunctionError) -> Bool {
        lhs.code == rhs.code
    }

    public static func badInput(code: FunctionErrorCode = .invalidRequest, message: String,
                                fileID: String = #fileID, line: Int = #line) -> FunctionError {
        FunctionError(code, message, fileID: fileID, line: line)
    }

    public static func unauthorized(code: FunctionErrorCode = .unauthorized, message: String = "a valid bearer token is required",
                                    fileID: String = #fileID, line: Int = #line) -> FunctionError {
        FunctionError(code, message, fileID: fileID, line: line)
    }

    public static func forbidden(message: String, fileID: String = #fileID, line: Int = #line) -> FunctionError {
        FunctionError(.forbidden, message, fileID: fileID, line: line)
    }

    public static func notFound(message: String, fileID: String = #fileID, line: Int = #line) -> FunctionError {
        FunctionError(.notFound, message, fileID: fileID, line: line)
    }

    public static func methodNotAllowed(message: String, fileID: String = #fileID, line: Int = #line) -> FunctionError {
        FunctionError(.methodNotAllowed, message, fileID: fileID, line: line)
    }

    public static func payloadTooLarge(message: String, fileID: String = #fileID, line: Int = #line) -> FunctionError {
        FunctionError(.payloadTooLarge, message, fileID: fileID, line: line)
    }

    public static func temporary(code: FunctionErrorCode = .temporarilyUnavailable, message: String,
                                 fileID: String = #fileID, line: Int = #line) -> FunctionError {
        FunctionError(code, message, fileID: fileID, line: line)
    }

    /// A missing or bad environment variable; name the variable, never its value.
    public static func configuration(_ message: String, fileID: String = #fileID, line: Int = #line) -> FunctionError {
        FunctionError(.configurationError, message, fileID: fileID, line: line)
    }

    public static func internalError(message: String = "internal error", fileID: String = #fileID, line: Int = #line) -> FunctionError {
        FunctionError(.internalError, message, fileID: fileID, line: line)
    }
}
