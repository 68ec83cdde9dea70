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

    private static func number(_ name: String, secret: Bool = false, default text: String? = nil) -> Setting<Int> {
        Setting(name, .optional, secret: secret, default: text, help: "a number") { text throws(SettingProblem) in
            guard let value = Int(text) else { throw SettingProblem("must be a number, not \(text)") }
            return value
        }
    }

    @Test func aSettingIsParsedOnceAndItsProblemNamesIt() throws {
        #expect(try environment.required(Self.number("PORT")) == 8080)
        #expect(try environment.value(Self.number("MISSING")) == nil)
        #expect(try environment.value(Self.number("MISSING", default: "7")) == 7, "the default is parsed like a value")
        #expect(!environment.isSet(Self.number("MISSING", default: "7")))
        let error = try #require(throws: FunctionError.self) { try environment.required(Self.number("SECRET_LEVEL")) }
        #expect(error.disposition == .configuration)
        #expect(error.message == "SECRET_LEVEL must be a number, not not-a-number")
    }

    @Test func aSecretThatDoesNotParseIsNotEchoed() throws {
        let error = try #require(throws: FunctionError.self) { try environment.required(Self.number("SECRET_LEVEL", secret: true)) }
        #expect(error.message == "SECRET_LEVEL has an invalid value")
        #expect(!error.message.contains("not-a-number"))
    }

    @Test func requiredUnlessAnotherSettingNamesBoth() throws {
        let bundle = Setting<String>.text("APP_BUNDLE", .requiredUnless("APP_CATALOG"), help: "the app")
        let error = try #require(throws: FunctionError.self) { try environment.required(bundle) }
        #expect(error.message == "APP_BUNDLE is not set (nor APP_CATALOG)")
        #expect(SettingUse.declared(bundle).marker == "(required unless APP_CATALOG is set)")
        let fromCatalog = Setting<String>("APP_NAME", .optional, sources: [.environment, .catalogSection("apps")], help: "the app's name") { $0 }
        #expect(fromCatalog.declaration.sources.contains(.catalogSection("apps")))
        #expect(Self.number("PORT").declaration.sources == [.environment], "the environment unless declared otherwise")
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

    @Test(arguments: [("Sandbox", "Sandbox"), (" \tSandbox \t", "Sandbox"), ("  ", ""), ("", ""), ("a b", "a b"), ("\tx", "x"), ("é ", "é")])
    func aListItemLosesItsSpacesAndTabsAtBothEnds(_ text: String, _ trimmed: String) {
        #expect(text[...].trimmedOfSpaces == trimmed)
    }
}
