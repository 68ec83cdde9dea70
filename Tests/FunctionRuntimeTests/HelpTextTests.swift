import FunctionRuntime
import Testing

@Suite("--help")
struct HelpTextTests {
    @Test func printsTheWholeContractAndExitsZeroWithoutStarting() throws {
        // No ECHO_PREFIX: --help must work on a machine that is not configured yet.
        let result = FunctionRunner.run(EchoHandler.self, arguments: ["--help"], stdin: [])
        #expect(result.exitCode == 0)
        let text = result.stdoutText
        for expected in [
            "echo", "Greets whoever asks.", "POST /echo", "public",
            #"{"name": string, "count": integer?, "mode": string?, "tags": [string]?}"#,
            #"{"greeting": string, "count": integer}"#,
            "ECHO_PREFIX", "(required)", "ECHO_SUFFIX", "(optional)", RuntimeVariable.logLevel,
            "direct", "NDJSON", "http event", "cgi", "GATEWAY_INTERFACE",
            "exit codes", "65", "75", "78",
        ] {
            #expect(text.contains(expected), "help lacks \(expected)")
        }
        #expect(text.contains("ECHO_PREFIX") && text.split(separator: "\n").contains { $0.contains("ECHO_PREFIX") && $0.contains("(required)") })
        #expect(!text.contains(RuntimeVariable.adminToken))
    }

    @Test func anInternalFunctionMentionsItsToken() throws {
        let result = FunctionRunner.run(LookupHandler.self, arguments: ["--help"], stdin: [])
        #expect(result.stdoutText.contains("GET /entitlements"))
        #expect(result.stdoutText.contains(RuntimeVariable.adminToken))
        #expect(result.stdoutText.contains("internal"))
    }

    @Test func aCronFunctionSaysItHasNoRoute() throws {
        let result = FunctionRunner.run(CronHandler.self, arguments: ["--help"], stdin: [])
        #expect(result.stdoutText.contains("route:       none"))
    }
}
