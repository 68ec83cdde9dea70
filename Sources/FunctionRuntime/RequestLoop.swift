import StorekeeperCore

/// One process's worth of requests: builds the handler once, admits each request (route,
/// bearer token, method), calls the handler, maps what it throws, writes the answer in the
/// front door's format and logs one line per request.
final class RequestLoop<Handler: FunctionHandler> {
    /// EX_IOERR: stdin or stdout failed, so no answer could be given.
    static var ioFailureExitCode: Int32 { 74 }

    let descriptor: FunctionDescriptor
    private let environment: EnvironmentVariables
    /// The bearer tokens, read and checked once per process: a FastCGI process answers many
    /// requests, and the configuration does not change under it.
    private lazy var configuredTokens: Result<[NamedToken]?, FunctionError> = {
        do throws(FunctionError) { return .success(try AdminAuthorization.configuredTokens(environment)) } catch { return .failure(error) }
    }()
    let clock: any TimeSource
    let log: Logger
    /// stdout; in the FastCGI door, the open request's answer stream.
    var output: any OutputSink
    private let makeAdapters: (EnvironmentVariables) -> any FunctionAdapters
    /// The command line after the program's name, handed to the handler's context.
    private let arguments: [String]
    private var exitCode: Int32 = 0
    /// The NDJSON line being answered (1-based), for the request log; nil for a single request.
    private var line: Int?

    init(descriptor: FunctionDescriptor, environment: EnvironmentVariables, clock: any TimeSource, log: Logger, output: any OutputSink,
         adapters: @escaping (EnvironmentVariables) -> any FunctionAdapters, arguments: [String] = []) {
        self.arguments = arguments
        self.descriptor = descriptor
        self.environment = environment
        self.clock = clock
        self.log = log
        self.output = output
        self.makeAdapters = adapters
    }

    /// Serves everything on `input`; returns the process exit code.
    /// `cgiEnvironment` is the whole process environment when the CGI door is in use.
    func serve(input: any InputSource, cgiEnvironment: [String: String]?) -> Int32 {
        // The input is answered: the handler may finish what it deferred (FunctionHandler.inputEnded).
        defer { if case .success(let handler)? = builtHandler { handler.inputEnded() } }
        do {
            if let cgiEnvironment {
                try serveCGI(input: input, environment: cgiEnvironment)
            } else {
                try serveStream(input: input)
            }
            return exitCode
        } catch {
            log.error("io_failed", ["error": String(describing: error)])
            return Self.ioFailureExitCode
        }
    }

    // MARK: - Front doors

    private func serveCGI(input: any InputSource, environment cgiEnvironment: [String: String]) throws {
        let started = clock.monotonic()
        let handler: Handler
        switch makeHandler() {
        case .success(let built): handler = built
        case .failure(let error):
            return try finish(errorResponse(error, door: .cgi), door: .cgi, request: nil, code: error.code, started: started)
        }
        let request: FunctionRequest
        do {
            request = try CGIRequest.read(environment: cgiEnvironment, input: input)
        } catch let error as FunctionError {
            return try finish(errorResponse(error, door: .cgi), door: .cgi, request: nil, code: error.code, started: started)
        }
        try answer(request, handler: handler, started: started)
    }

    private func serveStream(input: any InputSource) throws {
        let started = clock.monotonic()
        let bytes = try input.read(limit: RuntimeLimits.maxStreamBytes + 1)
        if bytes.count > RuntimeLimits.maxStreamBytes {
            let error = FunctionError.payloadTooLarge(message: "stdin is larger than \(RuntimeLimits.maxStreamBytes) bytes")
            return try finish(.error(error), door: .direct, request: nil, code: error.code, started: started)
        }
        let documents = RequestFraming.documents(bytes)
        let handler: Handler
        switch makeHandler() {
        case .success(let built): handler = built
        case .failure(let error):
            // Answered once, in the door the first document came through: the process never started.
            let door = documents.first?.frontDoor ?? .direct
            return try finish(errorResponse(error, door: door), door: door, request: nil, code: error.code, started: started)
        }
        if documents.isEmpty {
            let error = FunctionError.badInput(code: .emptyRequest, message: "the request is empty")
            return try finish(.error(error), door: .direct, request: nil, code: error.code, started: started)
        }
        for (index, document) in documents.enumerated() {
            line = documents.count > 1 ? index + 1 : nil
            try serve(document, handler: handler, started: index == 0 ? started : clock.monotonic())
        }
    }

    private func serve(_ document: DocumentProbe, handler: Handler, started: Duration) throws {
        let rejection: FunctionError
        let door = document.frontDoor
        switch document.shape {
        case .request:
            guard document.bytes.count <= RuntimeLimits.maxBodyBytes else {
                rejection = .payloadTooLarge(message: "the request is larger than \(RuntimeLimits.maxBodyBytes) bytes")
                break
            }
            let request = FunctionRequest(
                frontDoor: .direct,
                method: descriptor.method,
                path: descriptor.route ?? "/",
                headers: ["content-type": "application/json"],
                body: document.bytes
            )
            return try answer(request, handler: handler, started: started)
        case .httpEvent(let event):
            do {
                return try answer(event.request(), handler: handler, started: started)
            } catch let error as FunctionError {
                rejection = error
            }
        case .invalidJSON:
            rejection = .badInput(code: .invalidJSON, message: "the request is not valid JSON")
        case .notAnObject:
            rejection = .badInput(message: "the request must be a JSON object")
        case .malformedHTTPEvent:
            rejection = .badInput(message: "the HTTP event envelope is malformed")
        }
        try finish(errorResponse(rejection, door: door), door: door, request: nil, code: rejection.code, started: started)
    }

    // MARK: - Handling

    private(set) var builtHandler: Result<Handler, FunctionError>?

    /// Built at most once per process; a failure answers every door with 500 and exit 78
    /// (or 503/75 when the handler says its dependency is only temporarily down). A
    /// temporary failure is not kept: a long-running process (FastCGI) tries again on its
    /// next request rather than answer 503 for the rest of its life.
    func makeHandler() -> Result<Handler, FunctionError> {
        if let builtHandler { return builtHandler }
        let context = FunctionContext(environment: environment, clock: clock, log: log, adapters: makeAdapters(environment),
                                      arguments: arguments)
        let result: Result<Handler, FunctionError>
        do {
            result = .success(try Handler(context: context))
        } catch let error as FunctionError {
            result = .failure(error)
        } catch let error as StoreError {
            result = .failure(storeFailure(error))
        } catch let error as any CodedError {
            // A handler that cannot be built is never the caller's fault: what is not
            // temporary is the deployment's.
            result = .failure(FunctionError(code: error.code, message: error.reason,
                                            disposition: error.isRetryable ? .retryLater : .configuration,
                                            details: error.details, origin: error.origin))
        } catch {
            log.error("startup_error", ["error": String(describing: error)])
            result = .failure(.configuration("the function could not start"))
        }
        if case .failure(let error) = result {
            log.error("startup_failed", ["code": error.code, "reason": error.reason, "at": error.origin.description])
        }
        if case .failure(let error) = result, error.disposition == .retryLater { return result }
        builtHandler = result
        return result
    }

    func answer(_ arrived: FunctionRequest, handler: Handler, started: Duration) throws {
        var request = arrived
        if let refusal = admit(&request) {
            var response = errorResponse(refusal, door: request.frontDoor)
            if refusal.disposition == .caller(.methodNotAllowed) { response.headers.append(("Allow", descriptor.methods.joined(separator: ", "))) }
            if refusal.code == FunctionErrorCode.insufficientScope.rawValue {
                response.headers.append(("WWW-Authenticate", "Bearer error=\"insufficient_scope\", scope=\"\(descriptor.scope.rawValue)\""))
            }
            return try finish(response, door: request.frontDoor, request: request, code: refusal.code, started: started)
        }
        let response: FunctionResponse
        var failure: FunctionError?
        do {
            response = try handler.handle(request)
        } catch {
            let carried = error as? ErrorWithHeaders
            let mapped = map(carried?.error ?? error)
            var answer = errorResponse(mapped, door: request.frontDoor)
            answer.headers += carried?.headers ?? []
            response = answer
            failure = mapped
        }
        try finish(response, door: request.frontDoor, request: request, code: failure?.code, started: started,
                   origin: failure?.origin)
    }

    /// The HTTP-only checks, in an order that tells an anonymous caller the least: a function
    /// with no route does not exist, an internal one wants its token before anything else,
    /// then a scope wide enough. The matched token becomes the request's `caller`.
    private func admit(_ request: inout FunctionRequest) -> FunctionError? {
        guard request.frontDoor.isHTTP else { return nil }
        guard descriptor.route != nil else {
            return .notFound(message: "\(descriptor.name) is not served over HTTP")
        }
        if descriptor.visibility == .internal {
            let tokens: [NamedToken]
            do {
                guard let configured = try configuredTokens.get() else {
                    return .configuration("neither \(RuntimeVariable.adminToken) nor \(RuntimeVariable.tokens) is set; internal functions need one over HTTP")
                }
                tokens = configured
            } catch {
                return error
            }
            guard let caller = AdminAuthorization.caller(header: request.header("authorization"), among: tokens) else {
                return descriptor.signsInItself ? methodRefusal(request) : .unauthorized()
            }
            request.caller = caller
            guard caller.scope.allows(descriptor.scope) else {
                return FunctionError(.insufficientScope, "this function needs a token of scope \(descriptor.scope.rawValue)")
            }
        } else if request.header("authorization") != nil {
            // A public function may still ask who vouches (migrate-receipt's userId); a token
            // configuration it cannot read names nobody.
            let header = request.header("authorization")
            request.caller = (try? configuredTokens.get())
                .flatMap { AdminAuthorization.caller(header: header, among: $0) }
        }
        return methodRefusal(request)
    }

    private func methodRefusal(_ request: FunctionRequest) -> FunctionError? {
        guard descriptor.methods.contains(request.method) else {
            return .methodNotAllowed(message: "use \(descriptor.methods.joined(separator: " or "))")
        }
        return nil
    }

    /// Every error a handler throws is answered from its disposition: a StoreError the same
    /// way whatever broke (503, or 78 for the store's configuration); another CodedError with
    /// its own code, except an internal failure, which is a bug like any uncoded error:
    /// answered generically and described only in the log.
    private func map(_ error: any Error) -> FunctionError {
        if let error = error as? FunctionError { return error }
        if let error = error as? StoreError { return storeFailure(error) }
        if let error = error as? any CodedError {
            guard error.disposition == .internalFailure else { return FunctionError(error) }
            log.error("unexpected_error", ["code": error.code, "error": error.reason, "at": error.origin.description])
            return .internalError()
        }
        log.error("unexpected_error", ["error": String(describing: error)])
        return .internalError()
    }

    /// What broke goes to the log; the answer says only "retry later" or "configuration".
    private func storeFailure(_ error: StoreError) -> FunctionError {
        log.error("store_failed", ["code": error.code, "reason": error.reason, "at": error.origin.description])
        return FunctionError(storeFailure: error)
    }

    /// Over HTTP a stranger may be asking: a configuration problem is described in the log,
    /// not in the answer, so variable names and set-up details stay private.
    func errorResponse(_ error: FunctionError, door: FrontDoor) -> FunctionResponse {
        guard door.isHTTP, error.disposition == .configuration else { return .error(error) }
        log.error("configuration_error", ["code": error.code, "reason": error.reason])
        return .error(error.replacingMessage("the function is not configured correctly; see its log"))
    }

    // MARK: - Output

    func finish(_ response: FunctionResponse, door: FrontDoor, request: FunctionRequest?, code: String?,
                        started: Duration, origin: ErrorOrigin? = nil) throws {
        exitCode = max(exitCode, response.exitCode)
        let elapsed = (clock.monotonic() - started).components
        var fields: [String: any LogFieldValue] = [
            "door": door.rawValue,
            "method": request?.method ?? "-",
            "route": descriptor.route ?? "-",
            "status": response.status,
            "exit": response.exitCode,
            "duration_us": elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000,
        ]
        if let code { fields["code"] = code }
        // The token's name, never its value: who did it, for the audit trail.
        if let caller = request?.caller, door.isHTTP { fields["caller"] = caller.name }
        // Where the error was made: several places may share a code.
        if let origin { fields["at"] = origin.description }
        if let line { fields["line"] = line }
        let level: LogLevel = response.status >= 500 ? .error : response.status >= 400 ? .warning : .info
        // Logged before the answer is written: a web server may end a CGI process as soon as
        // it has the whole response, and the line would be lost.
        log.log(level, "request", fields)
        try output.write(encode(response, door: door))
        guard let afterDelivery = response.afterDelivery else { return }
        do {
            try afterDelivery.run()
        } catch {
            let failure = map(error)
            log.error("after_answer_failed", ["code": failure.code, "at": failure.origin.description])
            exitCode = max(exitCode, failure.disposition.exitCode)
        }
    }

    private func encode(_ response: FunctionResponse, door: FrontDoor) -> [UInt8] {
        switch door {
        case .direct:
            if response.verbatim { return response.body }
            // One answer per line: an empty body still takes its line, as `{}`.
            var bytes = response.body.isEmpty ? Array("{}".utf8) : response.body
            if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
            return bytes
        case .httpEvent:
            if let bytes = try? HTTPEventResponse(response).encoded() { return bytes }
            return Array(#"{"body":"{\"error\":{\"code\":\"internal_error\",\"message\":\"internal error\"}}","headers":{"content-type":"application/json"},"isBase64Encoded":false,"statusCode":500}"#.utf8) + [UInt8(ascii: "\n")]
        case .cgi, .fastcgi:
            // A FastCGI responder's stdout is a CGI response too.
            return CGIResponse.encode(response)
        }
    }
}
