import FunctionRuntime
import Testing

@Suite("Environment variables")
struct EnvironmentVariablesTests {
    private let environment = EnvironmentVariables(["PORT": "8080", "EMPTY": "", "SECRET_LEVEL": "not-a-number"])

    @Test func requiredNamesTheMissingVariable() throws {
        #expect(try environment.required("PORT") == "8080")
        let error = try #require(throws: FunctionError.self) { try environment.required("MISSING") }
        #expect(error.disposition == .configuration)
        #expect(error.message == "MISSING is not set")
        #expect(throws: FunctionError.configuration("")) { try environment.required("EMPTY") }
        #expect(environment.optional("EMPTY") == nil)
    }

    @Test func aTransformedValueThatDoesNotParseIsNotEchoed() throws {
        #expect(try environment.required("PORT") { Int($0) } == 8080)
        let error = try #require(throws: FunctionError.self) { try environment.required("SECRET_LEVEL") { Int($0) } }
        #expect(error.message == "SECRET_LEVEL has an invalid value")
        #expect(!error.message.contains("not-a-number"))
    }

    @Test func exitCodesFollowSysexits() {
        #expect(FunctionError.configuration("x").disposition.exitCode == 78)
        #expect(FunctionError.temporary(message: "x").disposition.httpStatus == 503)
        #expect(FunctionError.unauthorized().disposition.exitCode == 65)
        #expect(FunctionResponse.defaultExitCode(forStatus: 302) == 0)
        #expect(FunctionResponse.defaultExitCode(forStatus: 404) == 65)
        #expect(FunctionResponse.defaultExitCode(forStatus: 503) == 75)
        #expect(FunctionResponse.defaultExitCode(forStatus: 502) == 70)
        #expect(FunctionError.badInput(code: .unknownField, message: "x") == FunctionError.badInput(code: .unknownField, message: "y"))
        #expect(FunctionError.badInput(code: .unknownField, message: "x") != FunctionError.badInput(message: "x"))
    }
}
