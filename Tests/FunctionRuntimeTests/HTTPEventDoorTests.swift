import FoundationEssentials
import FunctionRuntime
import StorekeeperCore
import Testing

@Suite("HTTP event front door")
struct HTTPEventDoorTests {
    private func run<H: FunctionHandler>(_ handler: H.Type, _ event: String, environment: [String: String] = Run.echoEnvironment) throws -> (result: FunctionRunResult, answer: JSONValue) {
        let result = FunctionRunner.run(handler, environment: environment, stdin: Array(event.utf8))
        return (result, try Run.json(result.stdoutText))
    }

    @Test func answersAJSONBodyWithAnEnvelope() throws {
        let event = try Run.event(method: "POST", headers: ["Content-Type": "application/json"], body: #"{"name": "Ann"}"#)
        let (result, answer) = try run(EchoHandler.self, event)
        #expect(result.exitCode == 0)
        #expect(result.stdoutText.hasSuffix("}\n"))
        #expect(answer["statusCode"] == .number(200))
        #expect(answer["isBase64Encoded"] == .bool(false))
        #expect(answer["headers"]?["content-type"]?.stringValue == "application/json")
        #expect(answer["body"]?.stringValue == #"{"count":1,"greeting":"Hello, Ann"}"#)
    }

    /// The probe reads documents with StrictJSON and falls back to JSONDecoder for what
    /// StrictJSON refuses: either way an envelope is an envelope, however its names are
    /// escaped, and a request is a request.
    @Test func documentsAreClassifiedTheSameByEitherParser() throws {
        let event = try Run.event(method: "POST", body: #"{"name": "Ann"}"#)
        let escaped = event.replacing(#""version""#, with: #""versio\u006e""#)
        let duplicated = event.replacing(#""rawPath""#, with: #""isBase64Encoded":false,"rawPath""#)
        for envelope in [event, escaped, duplicated] {
            let (result, answer) = try run(EchoHandler.self, envelope)
            #expect(result.exitCode == 0, "\(envelope)")
            #expect(answer["body"]?.stringValue == #"{"count":1,"greeting":"Hello, Ann"}"#, "\(envelope)")
        }
        let notAnEnvelope = event.replacing(#""version":"2.0""#, with: #""version":2"#)
        let (_, refused) = try run(EchoHandler.self, notAnEnvelope)
        #expect(refused["error"]?["code"]?.stringValue == "unknown_field", "a request, whose fields are the envelope's")
    }

    @Test func decodesABase64Body() throws {
        let event = try Run.event(method: "POST", body: #"{"name": "Zoë"}"#, base64: true)
        let (_, answer) = try run(EchoHandler.self, event)
        #expect(answer["statusCode"] == .number(200))
        #expect(answer["body"]?.stringValue == #"{"count":1,"greeting":"Hello, Zoë"}"#)
    }

    @Test func rejectsABodyThatIsNotBase64() throws {
        var event = try Run.event(method: "POST", body: "x", base64: true)
        event = event.replacing(#""body":"eA==""#, with: #""body":"@@@""#)
        let (result, answer) = try run(EchoHandler.self, event)
        #expect(result.exitCode == 65)
        #expect(answer["statusCode"] == .number(400))
    }

    @Test func aGETRequestIsReadFromTheQueryString() throws {
        let event = try Run.event(
            method: "GET",
            path: "/entitlements",
            query: "userId=u%2F1&note=a+b%20c%E2%9C%93",
            headers: ["Authorization": TestTokens.bearer]
        )
        let (result, answer) = try run(LookupHandler.self, event, environment: [RuntimeVariable.adminToken: TestTokens.admin])
        #expect(result.exitCode == 0)
        let body = try Run.json(answer["body"]?.stringValue ?? "")
        #expect(body["userId"]?.stringValue == "u/1")
        #expect(body["note"]?.stringValue == "a b c✓")
        #expect(body["door"]?.stringValue == "http-event")
        #expect(body["path"]?.stringValue == "/entitlements")
    }

    @Test func anUnknownQueryParameterIsNamed() throws {
        let event = try Run.event(method: "GET", path: "/entitlements", query: "userId=u1&extra=1", headers: ["authorization": TestTokens.bearer])
        let (_, answer) = try run(LookupHandler.self, event, environment: [RuntimeVariable.adminToken: TestTokens.admin])
        #expect(answer["statusCode"] == .number(400))
        #expect(try Run.errorCode(answer["body"]?.stringValue ?? "") == "unknown_field")
    }

    @Test func theWrongMethodIs405WithAllow() throws {
        let event = try Run.event(method: "GET", body: nil)
        let (result, answer) = try run(EchoHandler.self, event)
        #expect(result.exitCode == 65)
        #expect(answer["statusCode"] == .number(405))
        #expect(answer["headers"]?["allow"]?.stringValue == "POST")
        #expect(try Run.errorCode(answer["body"]?.stringValue ?? "") == "method_not_allowed")
    }

    @Test func aRetryableErrorIs503AndAnUnexpectedOneIs500() throws {
        let retry = try run(EchoHandler.self, try Run.event(method: "POST", body: #"{"name": "a", "mode": "retry"}"#))
        #expect(retry.answer["statusCode"] == .number(503))
        #expect(retry.result.exitCode == 75)
        let crash = try run(EchoHandler.self, try Run.event(method: "POST", body: #"{"name": "a", "mode": "crash"}"#))
        #expect(crash.answer["statusCode"] == .number(500))
        #expect(crash.result.exitCode == 70)
        let reject = try run(EchoHandler.self, try Run.event(method: "POST", body: #"{"name": "a", "mode": "reject"}"#))
        #expect(reject.answer["statusCode"] == .number(400))
    }

    @Test func anEmptyPOSTBodyIsEmptyRequest() throws {
        let (_, answer) = try run(EchoHandler.self, try Run.event(method: "POST", body: nil))
        #expect(answer["statusCode"] == .number(400))
        #expect(try Run.errorCode(answer["body"]?.stringValue ?? "") == "empty_request")
    }

    @Test func aDecodedBodyOverTheLimitIs413() throws {
        let padding = String(repeating: "y", count: RuntimeLimits.maxBodyBytes)
        let (result, answer) = try run(EchoHandler.self, try Run.event(method: "POST", body: #"{"name": "\#(padding)"}"#, base64: true))
        #expect(result.exitCode == 65)
        #expect(answer["statusCode"] == .number(413))
    }

    @Test func aStartupConfigurationErrorIs500WithoutNamingTheVariable() throws {
        let (result, answer) = try run(EchoHandler.self, try Run.event(method: "POST", body: #"{"name": "a"}"#), environment: [:])
        #expect(result.exitCode == 78)
        #expect(answer["statusCode"] == .number(500))
        let body = answer["body"]?.stringValue ?? ""
        #expect(try Run.errorCode(body) == "configuration_error")
        #expect(!body.contains("ECHO_PREFIX"))
        #expect(result.logLines.contains { $0.contains("ECHO_PREFIX") })
    }

    @Test func formBodiesDecodeAndCookiesGoInTheirOwnList() throws {
        let event = try Run.event(
            method: "POST",
            path: "/auth/callback",
            headers: ["content-type": "application/x-www-form-urlencoded"],
            body: "code=c%2B1&state=s+1&user=%7B%22name%22%3A1%7D"
        )
        let (_, answer) = try run(FormHandler.self, event)
        #expect(answer["statusCode"] == .number(200))
        #expect(answer["cookies"] == .array([.string("a=1; Secure"), .string("b=2; Secure")]))
        #expect(answer["headers"]?["cache-control"]?.stringValue == "no-store")
        #expect(answer["headers"]?["set-cookie"] == nil)
        let body = try Run.json(answer["body"]?.stringValue ?? "")
        #expect(body["code"]?.stringValue == "c+1")
        #expect(body["state"]?.stringValue == "s 1")
        #expect(body["user"]?.stringValue == #"{"name":1}"#)
    }

    @Test func aMalformedEnvelopeIsAnsweredAsAnEvent() throws {
        let event = #"{"version": "2.0", "requestContext": {"http": {"method": "POST"}}, "headers": 5}"#
        let (result, answer) = try run(EchoHandler.self, event)
        #expect(result.exitCode == 65)
        #expect(answer["statusCode"] == .number(400))
    }
}
