import StorekeeperCore

/// What a handler answers: an HTTP status, extra headers, a body, and the process exit code
/// used when the function runs in a pipe or under cron.
public struct FunctionResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// Extra headers; `Content-Type: application/json` is added unless one is given here.
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// sysexits code; by default derived from `status` (see `defaultExitCode(forStatus:)`).
    public var exitCode: Int32
    /// The body is data rather than an answer (export-data's CSV or NDJSON on stdout): the
    /// direct door writes it as it is, even empty, and adds no line end.
    public var verbatim = false
    /// Runs once the answer has been written out whole (stdout, a CGI response), for what
    /// must happen only after the caller has it: export-data moves its cursor then, so a
    /// process killed before never skips. When it throws, the failure is logged and the
    /// process exits with the failure's code (75 for the store): the answer is out already.
    public var afterDelivery: AfterDelivery?

    public init(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = [], exitCode: Int32? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.exitCode = exitCode ?? FunctionResponse.defaultExitCode(forStatus: status)
    }

    /// `value` as compact JSON with sorted keys.
    public static func json(_ value: some Encodable, status: Int = 200, exitCode: Int32? = nil) throws -> FunctionResponse {
        let body = try RuntimeJSON.encode(value)
        return FunctionResponse(status: status, body: body, exitCode: exitCode)
    }

    /// The wire error `{"error": {"code": ..., "message": ...}}` with the status and exit code
    /// of the error's disposition.
    public static func error(_ error: FunctionError) -> FunctionResponse {
        var response = FunctionResponse(refusing: error, body: ErrorBody(error).encoded())
        switch error.disposition {
        case .caller(.unauthorized):
            response.headers.append(("WWW-Authenticate", "Bearer"))
        case .retryLater:
            // Callers that honour it (Apple does not, cron wrappers may) back off a little.
            response.headers.append(("Retry-After", "5"))
        default:
            break
        }
        return response
    }

    /// A refusal in a shape of the handler's own (`{"valid": false, "error": ...}`): the
    /// status and exit code are the error's disposition's, as for every error answer.
    public init(refusing error: some CodedError, body: [UInt8]) {
        self.init(status: error.disposition.httpStatus, body: body, exitCode: error.disposition.exitCode)
    }

    /// The error object `{"code", "message", ...}` of `error`, for a body built around it.
    public static func errorObject(_ error: some CodedError) -> [UInt8] {
        ErrorBody(FunctionError(error)).object()
    }

    /// 1xx–3xx → 0, 503 → 75 (retry), other 4xx → 65, other 5xx → 70.
    public static func defaultExitCode(forStatus status: Int) -> Int32 {
        switch status {
        case ..<400: 0
        case 503: 75
        case 400..<500: 65
        default: 70
        }
    }

    /// The first header with this name, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.0.lowercased() == wanted }?.1
    }
}

/// What runs once an answer is written out (`FunctionResponse.afterDelivery`). It is called
/// once, on the thread that wrote the answer, right after the write, and never handed to
/// another: so it may hold what is not `Sendable` (the store, the logger).
public struct AfterDelivery: @unchecked Sendable {
    public let run: () throws -> Void

    public init(_ run: @escaping () throws -> Void) {
        self.run = run
    }
}
