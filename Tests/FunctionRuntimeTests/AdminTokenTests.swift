import FunctionRuntime
import StorekeeperCore
import Testing

@Suite("Bearer token for internal functions over HTTP")
struct AdminTokenTests {
    private let environment = [RuntimeVariable.adminToken: TestTokens.admin]

    private func lookup(headers: [String: String], environment: [String: String]) throws -> (FunctionRunResult, JSONValue) {
        let event = try Run.event(method: "GET", path: "/entitlements", query: "userId=u1", headers: headers)
        let result = FunctionRunner.run(LookupHandler.self, environment: environment, stdin: Array(event.utf8))
        return (result, try Run.json(result.stdoutText))
    }

    @Test func theRightTokenIsAccepted() throws {
        for header in [TestTokens.bearer, "bearer \(TestTokens.admin)", "BEARER  \(TestTokens.admin)"] {
            let (result, answer) = try lookup(headers: ["authorization": header], environment: environment)
            #expect(result.exitCode == 0, "\(header)")
            #expect(answer["statusCode"] == .number(200))
        }
    }

    @Test func aWrongOrMissingTokenIs401() throws {
        let headers: [[String: String]] = [
            [:],
            ["authorization": "Bearer wrong"],
            ["authorization": "Bearer \(TestTokens.admin)x"],
            ["authorization": "Basic \(TestTokens.admin)"],
            ["authorization": TestTokens.admin],
            ["authorization": "Bearer "],
        ]
        for header in headers {
            let (result, answer) = try lookup(headers: header, environment: environment)
            #expect(result.exitCode == 65)
            #expect(answer["statusCode"] == .number(401))
            #expect(answer["headers"]?["www-authenticate"]?.stringValue == "Bearer")
            #expect(try Run.errorCode(answer["body"]?.stringValue ?? "") == "unauthorized")
            #expect(!result.logLines.contains { $0.contains(TestTokens.admin) })
        }
    }

    @Test func anUnsetTokenIsAConfigurationError() throws {
        let (result, answer) = try lookup(headers: ["authorization": TestTokens.bearer], environment: [:])
        #expect(result.exitCode == 78)
        #expect(answer["statusCode"] == .number(500))
        #expect(try Run.errorCode(answer["body"]?.stringValue ?? "") == "configuration_error")
        #expect(result.logLines.contains { $0.contains(RuntimeVariable.adminToken) })
    }

    @Test func theTokenIsCheckedBeforeTheMethod() throws {
        let event = try Run.event(method: "POST", path: "/entitlements", body: "{}")
        let result = FunctionRunner.run(LookupHandler.self, environment: environment, stdin: Array(event.utf8))
        #expect(try Run.json(result.stdoutText)["statusCode"] == .number(401))
    }

    @Test func aFunctionWithoutARouteIs404OverHTTPButRunsDirectly() throws {
        let event = try Run.event(method: "POST", path: "/cron", headers: ["authorization": TestTokens.bearer], body: "{}")
        let overHTTP = FunctionRunner.run(CronHandler.self, environment: environment, stdin: Array(event.utf8))
        #expect(try Run.json(overHTTP.stdoutText)["statusCode"] == .number(404))
        let direct = FunctionRunner.run(CronHandler.self, stdin: Array("{}\n".utf8))
        #expect(direct.exitCode == 0)
        #expect(direct.stdoutText == #"{"done":true}"# + "\n")
    }
}
