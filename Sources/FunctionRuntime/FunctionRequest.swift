/// One request as a handler sees it, whichever front door it came through: the runtime has
/// removed any envelope, checked the method and the bearer token, and capped the body.
public struct FunctionRequest: Sendable {
    public var frontDoor: FrontDoor
    public var method: String
    public var path: String
    /// The percent-decoded query parameters (`+` read as a space); empty in direct mode.
    public var query: [String: String]
    /// Header names are lowercased.
    public var headers: [String: String]
    public var body: [UInt8]
    /// Who is asking, for the audit trail: `Caller.local` for a direct call; over HTTP the
    /// bearer token the runtime matched (its name and scope), or nil for an anonymous caller
    /// of a public function.
    public var caller: Caller?

    public init(
        frontDoor: FrontDoor = .direct,
        method: String = "POST",
        path: String = "/",
        query: [String: String] = [:],
        headers: [String: String] = [:],
        body: [UInt8] = [],
        caller: Caller? = nil
    ) {
        self.frontDoor = frontDoor
        self.method = method.uppercased()
        self.path = path
        self.query = query
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
        self.body = body
        self.caller = caller ?? (frontDoor.isHTTP ? nil : .local)
    }

    /// A direct-mode request whose body is `json`; convenient in handler tests.
    public init(json: String, method: String = "POST") {
        self.init(frontDoor: .direct, method: method, body: Array(json.utf8))
    }

    /// The header's value; `name` is compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// Decodes the body as the function's own JSON request object, rejecting unknown fields.
    ///
    /// - A form body (`application/x-www-form-urlencoded`, Apple's `form_post`) and, for a GET
    ///   over HTTP with no body, the query string are read as a JSON object of strings.
    /// - Errors: `empty_request`, `invalid_json`, `invalid_request` (wrong type, missing
    ///   field; the message names the field path), `unknown_field` (names the field).
    public func decode<T: RequestBody>(_ type: T.Type) throws -> T {
        if isFormBody {
            return try StrictBody<T>.decode(parameters: FormURLEncoding.parameters(body))
        }
        if body.allSatisfy(RequestFraming.isWhitespace) {
            if frontDoor.isHTTP, method == "GET" || method == "HEAD" {
                return try StrictBody<T>.decode(parameters: query)
            }
            throw FunctionError.badInput(code: .emptyRequest, message: "the request is empty")
        }
        return try StrictBody<T>.decode(json: body)
    }

    /// A body that starts with `{` is JSON whatever its Content-Type says: `curl -d` labels
    /// everything as a form, and no form parameter name starts with a brace.
    private var isFormBody: Bool {
        if body.first(where: { !RequestFraming.isWhitespace($0) }) == UInt8(ascii: "{") { return false }
        guard let contentType = header("content-type") else { return false }
        // A media type has no spaces of its own, so dropping all of them trims it.
        let mediaType = (contentType.split(separator: ";", maxSplits: 1).first ?? "").filter { $0 != " " && $0 != "\t" }
        return mediaType.lowercased() == "application/x-www-form-urlencoded"
    }
}
