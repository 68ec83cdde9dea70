import FunctionRuntime
import StorekeeperCore
import Testing

@Suite("CGI front door")
struct CGIDoorTests {
    private func cgi(
        method: String,
        path: String = "/echo",
        query: String = "",
        body: String = "",
        contentLength: String? = nil,
        extra: [String: String] = [:]
    ) -> [String: String] {
        var environment = [
            "GATEWAY_INTERFACE": "CGI/1.1",
            "REQUEST_METHOD": method,
            "SCRIPT_NAME": path,
            "PATH_INFO": "",
            "QUERY_STRING": query,
            "SERVER_PROTOCOL": "HTTP/1.1",
        ]
        if let contentLength {
            environment["CONTENT_LENGTH"] = contentLength
        } else if !body.isEmpty {
            environment["CONTENT_LENGTH"] = String(body.utf8.count)
        }
        environment.merge(extra) { $1 }
        return environment
    }

    /// Splits a CGI response into its header lines and body.
    private func parse(_ result: FunctionRunResult) throws -> (headers: [String], body: String) {
        let text = result.stdoutText
        let parts = text.split(separator: "\r\n\r\n", maxSplits: 1, omittingEmptySubsequences: false)
        try #require(parts.count == 2, "no blank line in \(text)")
        return (parts[0].split(separator: "\r\n").map(String.init), String(parts[1]))
    }

    @Test func readsExactlyContentLengthBytesAndWritesACGIResponse() throws {
        let body = #"{"name": "Ann"}"#
        var environment = cgi(method: "POST", body: body)
        environment.merge(Run.echoEnvironment) { $1 }
        environment["CONTENT_TYPE"] = "application/json"
        // Bytes past CONTENT_LENGTH belong to nobody and must not be read as part of the body.
        let result = FunctionRunner.run(EchoHandler.self, environment: environment, stdin: Array((body + "garbage").utf8))
        #expect(result.exitCode == 0)
        let response = try parse(result)
        #expect(response.headers.first == "Status: 200 OK")
        #expect(response.headers.contains("Content-Type: application/json"))
        #expect(response.headers.contains("Content-Length: \(response.body.utf8.count)"))
        #expect(response.body == #"{"count":1,"greeting":"Hello, Ann"}"#)
        #expect(result.stdoutText.hasPrefix("Status: 200 OK\r\nContent-Type: application/json\r\n"))
    }

    @Test func aGETIsReadFromQueryStringWithTheTokenFromHTTPAuthorization() throws {
        let environment = cgi(
            method: "GET",
            path: "/entitlements",
            query: "userId=u+1&note=%C3%A9",
            extra: ["HTTP_AUTHORIZATION": TestTokens.bearer, RuntimeVariable.adminToken: TestTokens.admin]
        )
        let result = FunctionRunner.run(LookupHandler.self, environment: environment, stdin: [])
        #expect(result.exitCode == 0)
        let body = try Run.json(try parse(result).body)
        #expect(body["userId"]?.stringValue == "u 1")
        #expect(body["note"]?.stringValue == "é")
        #expect(body["door"]?.stringValue == "cgi")
        #expect(body["headerInEnvironment"] == .bool(false))
        #expect(!result.logLines.contains { $0.contains(TestTokens.admin) })
    }

    @Test func aContentLengthOverTheLimitIs413BeforeReading() throws {
        var environment = cgi(method: "POST", contentLength: String(RuntimeLimits.maxBodyBytes + 1))
        environment.merge(Run.echoEnvironment) { $1 }
        let result = FunctionRunner.run(EchoHandler.self, environment: environment, stdin: [])
        #expect(result.exitCode == 65)
        let response = try parse(result)
        #expect(response.headers.first == "Status: 413 Content Too Large")
        #expect(try Run.errorCode(response.body) == "payload_too_large")
    }

    @Test func aShortBodyOrABadContentLengthIs400() throws {
        for (length, stdin) in [("20", "{}"), ("12x", "{}")] {
            var environment = cgi(method: "POST", contentLength: length)
            environment.merge(Run.echoEnvironment) { $1 }
            let result = FunctionRunner.run(EchoHandler.self, environment: environment, stdin: Array(stdin.utf8))
            #expect(result.exitCode == 65)
            #expect(try parse(result).headers.first == "Status: 400 Bad Request")
        }
    }

    @Test func aFormPostIsDecodedAndEachCookieGetsItsLine() throws {
        let body = "code=abc&state=xyz"
        let environment = cgi(method: "POST", path: "/auth/callback", body: body, extra: ["CONTENT_TYPE": "application/x-www-form-urlencoded; charset=UTF-8"])
        let result = FunctionRunner.run(FormHandler.self, environment: environment, stdin: Array(body.utf8))
        let response = try parse(result)
        #expect(response.headers.first == "Status: 200 OK")
        #expect(response.headers.filter { $0.hasPrefix("Set-Cookie: ") }.count == 2)
        #expect(try Run.json(response.body)["state"]?.stringValue == "xyz")
    }

    @Test func aRefusalKeepsItsAnswerAndAddsTheHandlersErrorHeaders() throws {
        let body = "code=abc"
        let environment = cgi(method: "POST", path: "/auth/callback", body: body, extra: ["CONTENT_TYPE": "application/x-www-form-urlencoded"])
        let result = FunctionRunner.run(FormHandler.self, environment: environment, stdin: Array(body.utf8))
        let response = try parse(result)
        #expect(result.exitCode == 65)
        #expect(response.headers.first == "Status: 400 Bad Request")
        #expect(response.headers.filter { $0.hasPrefix("Set-Cookie: ") } == ["Set-Cookie: pending=; Max-Age=0"])
        #expect(response.body == #"{"error":{"code":"invalid_request","message":"missing field `state`"}}"#)
    }

    @Test func theWrongMethodIs405() throws {
        var environment = cgi(method: "PUT", body: "{}")
        environment.merge(Run.echoEnvironment) { $1 }
        let result = FunctionRunner.run(EchoHandler.self, environment: environment, stdin: Array("{}".utf8))
        let response = try parse(result)
        #expect(response.headers.first == "Status: 405 Method Not Allowed")
        #expect(response.headers.contains("Allow: POST"))
    }

    @Test func aStartupConfigurationErrorIsA500CGIResponseAndExit78() throws {
        let result = FunctionRunner.run(EchoHandler.self, environment: cgi(method: "POST", body: "{}"), stdin: Array("{}".utf8))
        #expect(result.exitCode == 78)
        let response = try parse(result)
        #expect(response.headers.first == "Status: 500 Internal Server Error")
        #expect(try Run.errorCode(response.body) == "configuration_error")
    }
}
