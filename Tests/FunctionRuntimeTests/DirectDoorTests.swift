import FunctionRuntime
import StorekeeperCore
import Testing

@Suite("Direct JSON front door")
struct DirectDoorTests {
    @Test func answersOneRequestWithOneLine() throws {
        let result = Run.echo(#"{"name": "Ann", "count": 2}"#)
        #expect(result.exitCode == 0)
        #expect(result.stdoutText == #"{"count":2,"greeting":"Hello, Ann"}"# + "\n")
    }

    @Test func acceptsAPrettyPrintedRequest() throws {
        let result = Run.echo("{\n  \"name\": \"Ann\",\n  \"count\": 3\n}\n")
        #expect(result.exitCode == 0)
        #expect(result.stdoutLines == [#"{"count":3,"greeting":"Hello, Ann"}"#])
    }

    @Test func answersNDJSONLineByLineAndSurvivesABadLine() throws {
        let result = Run.echo("{\"name\": \"Ann\"}\n\n{\"name\": oops}\n{\"name\": \"Bob\"}\n")
        let lines = result.stdoutLines
        try #require(lines.count == 3)
        #expect(lines[0] == #"{"count":1,"greeting":"Hello, Ann"}"#)
        #expect(try Run.errorCode(lines[1]) == "invalid_json")
        #expect(lines[2] == #"{"count":1,"greeting":"Hello, Bob"}"#)
        #expect(result.exitCode == 65)
        // One log line per request, none of them carrying the request body.
        #expect(result.logLines.filter { $0.contains(#""event":"request""#) }.count == 3)
        #expect(!result.logLines.contains { $0.contains("Ann") || $0.contains("Bob") })
        let numbered = try result.logLines.map(Run.json).filter { $0["event"]?.stringValue == "request" }.map { $0["line"] }
        #expect(numbered == [.number(1), .number(2), .number(3)])
    }

    /// How stdin is split: one document when the whole input is one (however it is spread over
    /// lines), else one request per non-blank line, whatever the first line is.
    @Test(arguments: [
        ("{\"name\":\n \"Ann\"}", ["Hello, Ann"]),
        ("{\"name\": \"Ann\"}\r\n \t\r\n{\"name\": \"Bob\"}", ["Hello, Ann", "Hello, Bob"]),
        ("\n\n  {\"name\": \"Ann\"}  \n   \n{\"name\": \"Bob\"}\n\n", ["Hello, Ann", "Hello, Bob"]),
        ("{\"name\": \n{\"name\": \"Bob\"}\n", ["invalid_json", "Hello, Bob"]),
        ("[1,\n2]\n", ["invalid_request"]),
        ("[1]\n{\"name\": \"Bob\"}", ["invalid_request", "Hello, Bob"]),
    ])
    func stdinIsOneDocumentOrOneRequestALine(stdin: String, answers: [String]) throws {
        let lines = Run.echo(stdin).stdoutLines
        try #require(lines.count == answers.count, "\(lines)")
        for (line, expected) in zip(lines, answers) {
            if expected.hasPrefix("Hello") {
                #expect(line.contains(expected), "\(line)")
            } else {
                #expect(try Run.errorCode(line) == expected, "\(line)")
            }
        }
    }

    @Test func ndjsonExitCodeIsTheLargestOfTheAnswers() throws {
        let result = Run.echo("{\"name\": \"a\", \"mode\": \"retry\"}\n{\"name\": \"b\", \"mode\": \"reject\"}\n{\"name\": \"c\"}\n")
        #expect(result.stdoutLines.count == 3)
        #expect(result.exitCode == 75)
    }

    @Test func emptyInputIsEmptyRequest() throws {
        for stdin in ["", "  \n\t\n"] {
            let result = Run.echo(stdin)
            #expect(result.exitCode == 65)
            #expect(try Run.errorCode(result.stdoutText) == "empty_request")
        }
    }

    @Test func invalidJSONIsInvalidJSON() throws {
        let result = Run.echo(#"{"name": "Ann""#)
        #expect(result.exitCode == 65)
        #expect(try Run.errorCode(result.stdoutText) == "invalid_json")
    }

    @Test func aRequestThatIsNotAnObjectIsInvalidRequest() throws {
        let result = Run.echo(#"["Ann"]"#)
        #expect(result.exitCode == 65)
        #expect(try Run.errorCode(result.stdoutText) == "invalid_request")
    }

    @Test func wrongTypeNamesTheField() throws {
        let result = Run.echo(#"{"name": 5}"#)
        #expect(result.exitCode == 65)
        #expect(try Run.errorCode(result.stdoutText) == "invalid_request")
        #expect(try Run.errorMessage(result.stdoutText)?.contains("`name`") == true)

        let nested = Run.echo(#"{"name": "Ann", "tags": ["ok", 7]}"#)
        #expect(try Run.errorMessage(nested.stdoutText)?.contains("`tags[1]`") == true)
    }

    @Test func missingFieldNamesTheField() throws {
        let result = Run.echo(#"{"count": 1}"#)
        #expect(try Run.errorCode(result.stdoutText) == "invalid_request")
        #expect(try Run.errorMessage(result.stdoutText) == "missing field `name`")
    }

    @Test func nullForARequiredFieldIsInvalidRequest() throws {
        let result = Run.echo(#"{"name": null}"#)
        #expect(try Run.errorCode(result.stdoutText) == "invalid_request")
        #expect(try Run.errorMessage(result.stdoutText)?.contains("`name`") == true)
    }

    @Test func unknownFieldIsNamed() throws {
        let result = Run.echo(#"{"name": "Ann", "nmae": "typo"}"#)
        #expect(result.exitCode == 65)
        #expect(try Run.errorCode(result.stdoutText) == "unknown_field")
        #expect(try Run.errorMessage(result.stdoutText)?.contains("`nmae`") == true)
    }

    /// A typed function's accepted fields are its request's coding keys: a request of no
    /// fields refuses any field, and answers its typed response as JSON.
    @Test func aTypedFunctionWithNoFieldsRefusesEveryField() throws {
        let accepted = FunctionRunner.run(CronHandler.self, stdin: Array("{}\n".utf8))
        #expect(accepted.exitCode == 0)
        #expect(accepted.stdoutText.contains(#""done":true"#))
        for body in [#"{"done": true}"#, #"{" unused": 1}"#] {
            let refused = FunctionRunner.run(CronHandler.self, stdin: Array((body + "\n").utf8))
            #expect(refused.exitCode == 65)
            #expect(try Run.errorCode(refused.stdoutText) == "unknown_field")
        }
    }

    @Test func aBodyOverOneMebibyteIsTooLarge() throws {
        let padding = String(repeating: "x", count: RuntimeLimits.maxBodyBytes)
        let result = Run.echo(#"{"name": "\#(padding)"}"#)
        #expect(result.exitCode == 65)
        #expect(try Run.errorCode(result.stdoutText) == "payload_too_large")
    }

    @Test func stdinBeyondTheStreamLimitIsTooLargeAndNotReadFurther() throws {
        let stdin = [UInt8](repeating: UInt8(ascii: " "), count: RuntimeLimits.maxStreamBytes + 10)
        let result = FunctionRunner.run(EchoHandler.self, environment: Run.echoEnvironment, stdin: stdin)
        #expect(result.exitCode == 65)
        #expect(try Run.errorCode(result.stdoutText) == "payload_too_large")
    }

    @Test func aRetryableCodedErrorIs75WithItsCode() throws {
        let result = Run.echo(#"{"name": "Ann", "mode": "retry"}"#)
        #expect(result.exitCode == 75)
        #expect(try Run.errorCode(result.stdoutText) == "STORE_UNAVAILABLE")
        #expect(try Run.errorMessage(result.stdoutText) == "the store did not answer")
    }

    @Test func aNonRetryableCodedErrorIs65WithItsCode() throws {
        let result = Run.echo(#"{"name": "Ann", "mode": "reject"}"#)
        #expect(result.exitCode == 65)
        #expect(try Run.errorCode(result.stdoutText) == "INVALID_APP_IDENTIFIER")
    }

    @Test func aFunctionErrorMapsByKind() throws {
        let result = Run.echo(#"{"name": "Ann", "mode": "missing"}"#)
        #expect(result.exitCode == 65)
        #expect(try Run.errorCode(result.stdoutText) == "not_found")
    }

    @Test func anUnexpectedErrorIsAGenericInternalErrorWithDetailsOnlyInTheLog() throws {
        let result = Run.echo(#"{"name": "Ann", "mode": "crash"}"#)
        #expect(result.exitCode == 70)
        #expect(try Run.errorCode(result.stdoutText) == "internal_error")
        #expect(try Run.errorMessage(result.stdoutText) == "internal error")
        #expect(!result.stdoutText.contains("boom"))
        let detail = try #require(result.logLines.first { $0.contains("unexpected_error") })
        #expect(detail.contains("boom"))
        // The JWS inside the error's description never reaches the log.
        #expect(!detail.contains(TestTokens.jws))
        #expect(detail.contains(LogRedaction.redactedJWS))
    }

    @Test func aMissingVariableAtStartIsAConfigurationErrorNamingIt() throws {
        let result = Run.echo("{\"name\": \"Ann\"}\n{\"name\": \"Bob\"}\n", environment: [:])
        #expect(result.exitCode == 78)
        // Answered once: the process never started serving.
        #expect(result.stdoutLines.count == 1)
        #expect(try Run.errorCode(result.stdoutText) == "configuration_error")
        #expect(try Run.errorMessage(result.stdoutText) == "ECHO_PREFIX is not set")
        #expect(result.logLines.contains { $0.contains("startup_failed") && $0.contains("ECHO_PREFIX") })
    }

    @Test func anEmptyVariableCountsAsUnset() throws {
        let result = Run.echo(#"{"name": "Ann"}"#, environment: ["ECHO_PREFIX": ""])
        #expect(result.exitCode == 78)
    }

    @Test func anUnexpectedStartupErrorIsAConfigurationError() throws {
        let result = FunctionRunner.run(StartupCrashHandler.self, stdin: Array("{}".utf8))
        #expect(result.exitCode == 78)
        #expect(try Run.errorMessage(result.stdoutText) == "the function could not start")
        #expect(!result.stderr.isEmpty)
        #expect(!String(decoding: result.stderr, as: UTF8.self).contains("s3cr3t"))
    }

    @Test func directModeNeedsNoTokenAndUsesTheDescriptorsMethod() throws {
        let result = FunctionRunner.run(LookupHandler.self, stdin: Array(#"{"userId": "u1"}"#.utf8))
        #expect(result.exitCode == 0)
        let answer = try Run.json(result.stdoutText)
        #expect(answer["userId"]?.stringValue == "u1")
        #expect(answer["door"]?.stringValue == "direct")
        #expect(answer["path"]?.stringValue == "/entitlements")
    }

    @Test func aNonJSONBodyIsWrittenAsIsOnItsLine() throws {
        let result = Run.echo(#"{"name": "Ann", "mode": "html"}"#)
        #expect(result.stdoutText == "<p>hi</p>\n")
    }

    @Test func everyRequestIsLoggedAsAJSONLine() throws {
        let result = Run.echo(#"{"name": "Ann"}"#)
        let line = try #require(result.logLines.first { $0.contains(#""event":"request""#) })
        let entry = try Run.json(line)
        #expect(entry["ts"]?.stringValue == "2024-05-01T12:00:00.000Z")
        #expect(entry["level"]?.stringValue == "info")
        #expect(entry["fn"]?.stringValue == "echo")
        #expect(entry["door"]?.stringValue == "direct")
        #expect(entry["method"]?.stringValue == "POST")
        #expect(entry["route"]?.stringValue == "/echo")
        #expect(entry["status"] == .number(200))
        #expect(entry["exit"] == .number(0))
        if case .number(let micros) = entry["duration_us"] {
            #expect(micros >= 0)
        } else {
            Issue.record("duration_us missing from \(line)")
        }
    }
}
