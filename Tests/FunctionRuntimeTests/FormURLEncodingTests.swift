@testable import FunctionRuntime
import Testing

@Suite("Query and form decoding")
struct FormURLEncodingTests {
    struct Callback: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case code, state, user
        }
        let code: String
        let state: String
        let user: String?
    }

    @Test func percentEscapesAndPlusAreDecoded() throws {
        let parameters = try FormURLEncoding.parameters("a=1&b=x+y%21&c=%E2%9C%93&d=%2B&e&=ignored&&f=")
        #expect(parameters == ["a": "1", "b": "x y!", "c": "✓", "d": "+", "e": "", "f": ""])
    }

    @Test func malformedInputIsInvalidRequest() throws {
        for query in ["a=%zz", "a=%4", "a=%", "a=%FF", "a=1&a=2"] {
            #expect(throws: FunctionError.badInput(message: "")) {
                try FormURLEncoding.parameters(query)
            }
        }
    }

    @Test func aFormBodyDecodesLikeJSON() throws {
        let request = FunctionRequest(
            frontDoor: .cgi,
            method: "POST",
            headers: ["Content-Type": "Application/X-WWW-Form-Urlencoded; charset=utf-8"],
            body: Array("code=c1&state=s%201&user=%7B%7D".utf8)
        )
        let callback = try request.decode(Callback.self)
        #expect(callback.code == "c1")
        #expect(callback.state == "s 1")
        #expect(callback.user == "{}")
    }

    @Test func aFormBodyRejectsUnknownAndMissingFields() throws {
        let unknown = FunctionRequest(method: "POST", headers: ["content-type": "application/x-www-form-urlencoded"], body: Array("code=1&state=2&extra=3".utf8))
        #expect(throws: FunctionError.badInput(code: .unknownField, message: "")) { try unknown.decode(Callback.self) }
        let missing = FunctionRequest(method: "POST", headers: ["content-type": "application/x-www-form-urlencoded"], body: Array("code=1".utf8))
        #expect(throws: FunctionError.badInput(code: .invalidRequest, message: "")) { try missing.decode(Callback.self) }
    }

    @Test func aGETOverHTTPDecodesTheQuery() throws {
        let request = FunctionRequest(frontDoor: .httpEvent, method: "GET", query: ["code": "c", "state": "s"])
        #expect(try request.decode(Callback.self).state == "s")
    }

    @Test func anEmptyBodyOutsideGETIsEmptyRequest() throws {
        let request = FunctionRequest(frontDoor: .httpEvent, method: "POST", query: ["code": "c", "state": "s"])
        #expect(throws: FunctionError.badInput(code: .emptyRequest, message: "")) { try request.decode(Callback.self) }
    }

    @Test func handlersCanBuildRequestsFromJSON() throws {
        let callback = try FunctionRequest(json: #"{"code": "c", "state": "s"}"#).decode(Callback.self)
        #expect(callback.code == "c")
    }
}
