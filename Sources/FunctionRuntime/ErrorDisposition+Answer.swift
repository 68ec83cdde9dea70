import StorekeeperCore

/// The one place a disposition becomes an HTTP status and a process exit code. Every error
/// answer (`FunctionResponse.error`, a handler's own refusal shape through
/// `FunctionResponse(refusing:body:)`) takes both from here.
extension ErrorDisposition {
    public var httpStatus: Int {
        switch self {
        case .caller(.badInput): 400
        case .caller(.unauthorized): 401
        case .caller(.forbidden): 403
        case .caller(.notFound): 404
        case .caller(.methodNotAllowed): 405
        case .caller(.payloadTooLarge): 413
        case .retryLater: 503
        case .throttled: 429
        case .configuration, .internalFailure: 500
        case .upstreamRefused, .upstreamFailed: 502
        }
    }

    /// sysexits: every caller mistake is EX_DATAERR (65) so a cron wrapper has one code to
    /// test for "do not retry"; 75 (EX_TEMPFAIL) means retry; 78 (EX_CONFIG) means fix the
    /// configuration, also when Apple refuses our credentials; 69 (EX_UNAVAILABLE) is Apple
    /// answering what it does not document; 70 (EX_SOFTWARE) is our bug.
    public var exitCode: Int32 {
        switch self {
        case .caller: 65
        case .retryLater, .throttled: 75
        case .configuration, .upstreamRefused: 78
        case .upstreamFailed: 69
        case .internalFailure: 70
        }
    }
}

extension Reply {
    /// A refusal in a typed answer of the handler's own shape: the status and exit code are
    /// the error's disposition's, as for every error answer.
    public init(_ body: Body, refusing error: some CodedError, headers: [(String, String)] = []) {
        self.init(body, status: error.disposition.httpStatus, headers: headers, exitCode: error.disposition.exitCode)
    }
}
