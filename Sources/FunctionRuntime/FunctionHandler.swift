/// One Storekeeper function: a description for `--help` and routing, a constructor that reads
/// its configuration once, and a request handler.
///
/// The runtime builds the handler once per process, before the first request, and then
/// calls `handle` for each request whatever front door it came through (direct JSON, an
/// HTTP event or CGI), so a handler never sees an envelope.
public protocol FunctionHandler: AnyObject {
    /// Name, route, method, visibility, help text, environment variables.
    static var descriptor: FunctionDescriptor { get }

    /// Built once per process from the environment, before the first request.
    /// Throw `FunctionError.configuration("VAR_NAME ...")` for a missing or bad variable (exit 78).
    init(context: FunctionContext) throws

    /// Handles one request. Throw `FunctionError` or any `CodedError`; return a response.
    func handle(_ request: FunctionRequest) throws -> FunctionResponse

    /// One input has been answered: a CGI or FastCGI request, or a whole stdin (NDJSON).
    /// Drop what was kept for that input only (records read once for a batch), so that a
    /// long-running process (FastCGI) carries nothing of one request into the next. Nothing
    /// by default.
    func inputEnded()
}

extension FunctionHandler {
    public func inputEnded() {}
}
