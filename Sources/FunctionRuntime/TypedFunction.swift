/// A handler that works on typed values: the runtime decodes its `Request` (unknown fields
/// refused, see `RequestBody`), calls `handle`, and encodes the `Response` as JSON. It is the
/// layer most functions are written in; `FunctionHandler.handle(_:)` stays the byte-level
/// door underneath, for the runtime and for tests.
public protocol TypedFunction: FunctionHandler {
    associatedtype Request: RequestBody
    associatedtype Response: Encodable

    /// Answers one decoded request. `call` is the request as it arrived (front door, headers,
    /// query), for the few functions whose answer depends on more than the body.
    func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response>

    /// Headers every error answer to `call` carries (a failed request that must still undo
    /// something in the browser, such as a cookie). None by default.
    func errorHeaders(for call: FunctionRequest) -> [(String, String)]
}

extension TypedFunction {
    public func handle(_ request: FunctionRequest) throws -> FunctionResponse {
        do {
            return try handle(try request.decode(Request.self), call: request).response()
        } catch {
            let headers = errorHeaders(for: request)
            guard !headers.isEmpty else { throw error }
            throw ErrorWithHeaders(error, headers: headers)
        }
    }

    public func errorHeaders(for call: FunctionRequest) -> [(String, String)] { [] }
}

/// What a typed handler answers: the body, and the status, headers and exit code when they
/// are not the plain 200 / 0.
public struct Reply<Body: Encodable> {
    public var body: Body
    public var status: Int
    public var headers: [(String, String)]
    /// By default derived from `status` (`FunctionResponse.defaultExitCode(forStatus:)`).
    public var exitCode: Int32?
    /// Data answered in place of the JSON body, with its content type (export-data's CSV or
    /// NDJSON on stdout, `FunctionResponse.verbatim`); `body` is then not written.
    public var data: (bytes: [UInt8], contentType: String)?
    /// See `FunctionResponse.afterDelivery`.
    public var afterDelivery: AfterDelivery?

    public init(_ body: Body, status: Int = 200, headers: [(String, String)] = [], exitCode: Int32? = nil) {
        self.body = body
        self.status = status
        self.headers = headers
        self.exitCode = exitCode
    }

    /// The body as compact JSON with sorted keys, with this reply's status, headers and exit.
    public func response() throws -> FunctionResponse {
        var response: FunctionResponse
        if let data {
            response = FunctionResponse(status: status, headers: headers + [("Content-Type", data.contentType)], body: data.bytes,
                                        exitCode: exitCode)
            response.verbatim = true
        } else {
            response = try FunctionResponse.json(body, status: status, exitCode: exitCode)
            response.headers = headers
        }
        response.afterDelivery = afterDelivery
        return response
    }
}
