import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// A public POST function that greets `name`; `mode` makes it fail in each way a handler can.
/// On the byte layer, not a `TypedFunction`: its `html` mode answers a body that is not JSON.
final class EchoHandler: FunctionHandler {
    static let descriptor = FunctionDescriptor(
        name: "echo",
        route: "/echo",
        method: "POST",
        visibility: .public,
        summary: "Greets whoever asks.",
        request: #"{"name": string, "count": integer?, "mode": string?, "tags": [string]?}"#,
        response: #"{"greeting": string, "count": integer}"#,
        variables: [.declared(prefixSetting), .declared(suffixSetting)]
    )

    static let prefixSetting = Setting<String>.text("ECHO_PREFIX", .required, help: "the greeting's first word")
    static let suffixSetting = Setting<String>.text("ECHO_SUFFIX", .optional, default: "", help: "appended to the greeting")

    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case name, count, mode, tags
        }
        let name: String
        let count: Int?
        let mode: String?
        let tags: [String]?
    }

    struct Response: Encodable {
        let greeting: String
        let count: Int
    }

    let prefix: String
    let suffix: String

    init(context: FunctionContext) throws {
        prefix = try context.environment.required(Self.prefixSetting)
        suffix = try context.environment.value(Self.suffixSetting) ?? ""
    }

    func handle(_ request: FunctionRequest) throws -> FunctionResponse {
        let body = try request.decode(Request.self)
        switch body.mode {
        case "retry":
            throw TestCodedError(code: "STORE_UNAVAILABLE", reason: "the store did not answer", disposition: .retryLater)
        case "reject":
            throw TestCodedError(code: "INVALID_APP_IDENTIFIER", reason: "bundle id mismatch", disposition: .badInput)
        case "crash":
            throw UnexpectedFailure(detail: "boom with \(TestTokens.jws)")
        case "missing":
            throw FunctionError.notFound(message: "no such greeting")
        case "html":
            return FunctionResponse(status: 200, headers: [("Content-Type", "text/html")], body: Array("<p>hi</p>".utf8))
        default:
            return try .json(Response(greeting: "\(prefix), \(body.name)\(suffix)", count: body.count ?? 1))
        }
    }
}

/// An internal GET function: its request comes from the query string over HTTP.
final class LookupHandler: TypedFunction {
    static let descriptor = FunctionDescriptor(
        name: "lookup",
        route: "/entitlements",
        method: "GET",
        visibility: .internal,
        summary: "Looks a user up.",
        request: #"{"userId": string, "note": string?}"#,
        response: #"{"userId": string, "note": string, "door": string, "path": string}"#
    )

    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case userId, note
        }
        let userId: String
        let note: String?
    }

    struct Response: Encodable {
        let userId: String
        let note: String
        let door: String
        let path: String
        let headerInEnvironment: Bool
    }

    /// Whether a request header reached the configuration (it must not, under CGI).
    let headerInEnvironment: Bool

    init(context: FunctionContext) throws {
        headerInEnvironment = context.environment.optional("HTTP_AUTHORIZATION") != nil
    }

    func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        Reply(Response(userId: request.userId, note: request.note ?? "", door: call.frontDoor.rawValue, path: call.path,
                       headerInEnvironment: headerInEnvironment))
    }
}

/// A public POST function fed by an HTML form (`form_post`); answers with a cookie, and
/// clears one when it refuses.
final class FormHandler: TypedFunction {
    static let descriptor = FunctionDescriptor(
        name: "form",
        route: "/auth/callback",
        method: "POST",
        visibility: .public,
        summary: "Receives a form post.",
        request: "code=...&state=...",
        response: #"{"code": string, "state": string}"#
    )

    struct Request: RequestBody, Encodable {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case code, state, user
        }
        let code: String
        let state: String
        let user: String?
    }

    init(context: FunctionContext) throws {}

    func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Request> {
        Reply(request, headers: [("Set-Cookie", "a=1; Secure"), ("Set-Cookie", "b=2; Secure"), ("Cache-Control", "no-store")])
    }

    func errorHeaders(for call: FunctionRequest) -> [(String, String)] {
        [("Set-Cookie", "pending=; Max-Age=0")]
    }
}

/// A cron-only function: no route, so HTTP callers get 404.
final class CronHandler: TypedFunction {
    static let descriptor = FunctionDescriptor(
        name: "cron",
        route: nil,
        method: "POST",
        visibility: .internal,
        summary: "Runs from cron.",
        request: "{}",
        response: #"{"done": true}"#
    )

    typealias Request = NoFields

    struct Response: Encodable {
        let done: Bool
    }

    init(context: FunctionContext) throws {}

    func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        Reply(Response(done: true))
    }
}

/// A handler that fails to start with something that is not a FunctionError.
final class StartupCrashHandler: TypedFunction {
    static let descriptor = FunctionDescriptor(
        name: "startup-crash", route: "/x", method: "POST", visibility: .public, summary: "s", request: "r", response: "r"
    )

    init(context: FunctionContext) throws {
        throw UnexpectedFailure(detail: "key file unreadable: \(TestTokens.bearer)")
    }

    struct Response: Encodable {}

    func handle(_ request: NoFields, call: FunctionRequest) throws -> Reply<Response> {
        Reply(Response())
    }
}

struct TestCodedError: CodedError {
    let code: String
    let reason: String
    let disposition: ErrorDisposition
    let origin = ErrorOrigin()
}

struct UnexpectedFailure: Error {
    let detail: String
}

enum TestTokens {
    /// Shaped like a compact JWS: `{"alg":"ES256"}` . payload . signature.
    static let jws = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEyMzQ1Njc4OTAifQ.c2lnbmF0dXJlLWJ5dGVzLWdvLWhlcmUtMTIzNDU2"
    static let bearer = "Bearer s3cr3t-admin-token"
    static let admin = "s3cr3t-admin-token"
}

/// Test helpers shared by the suites.
enum Run {
    static let echoEnvironment = ["ECHO_PREFIX": "Hello"]

    static func echo(_ stdin: String, environment: [String: String] = echoEnvironment) -> FunctionRunResult {
        FunctionRunner.run(EchoHandler.self, environment: environment, stdin: Array(stdin.utf8), clock: SystemTime(pinnedAt: Date(timeIntervalSince1970: 1_714_564_800)))
    }

    static func json(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    static func json(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// An HTTP event envelope (payload format 2.0) as a one-line JSON string.
    static func event(
        method: String,
        path: String = "/echo",
        query: String = "",
        headers: [String: String] = [:],
        body: String? = nil,
        base64: Bool = false
    ) throws -> String {
        var object: [String: JSONValue] = [
            "version": .string("2.0"),
            "routeKey": .string("$default"),
            "rawPath": .string(path),
            "rawQueryString": .string(query),
            "headers": .object(headers.mapValues { .string($0) }),
            "requestContext": .object(["http": .object(["method": .string(method), "path": .string(path)])]),
            "isBase64Encoded": .bool(base64),
        ]
        if let body {
            object["body"] = .string(base64 ? Data(body.utf8).base64EncodedString() : body)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(JSONValue.object(object)), as: UTF8.self)
    }

    /// The error code of a direct-mode answer line.
    static func errorCode(_ line: String) throws -> String? {
        try json(line)["error"]?["code"]?.stringValue
    }

    static func errorMessage(_ line: String) throws -> String? {
        try json(line)["error"]?["message"]?.stringValue
    }
}
