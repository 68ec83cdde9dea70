import FunctionRuntime
import StorekeeperCore
import Testing

/// A handler that answers data rather than JSON (as export-data does on stdout) and has
/// something to do once the data is out.
final class DataHandler: TypedFunction {
    static let descriptor = FunctionDescriptor(
        name: "data", route: nil, method: "POST", visibility: .internal, summary: "Writes lines.", request: "{}", response: "lines")

    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable { case lines, failAfter }
        var lines: [String]
        var failAfter: Bool?
    }

    struct Response: Encodable { var count: Int }

    /// What ran after delivery, in order (the tests run one at a time: `.serialized`).
    nonisolated(unsafe) static var delivered: [Int] = []

    init(context: FunctionContext) throws {}

    func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        var reply = Reply(Response(count: request.lines.count))
        reply.data = (Array(request.lines.map { $0 + "\n" }.joined().utf8), "application/x-ndjson")
        let count = request.lines.count
        let fail = request.failAfter ?? false
        reply.afterDelivery = AfterDelivery {
            if fail { throw StoreError(.unavailable, "the store went away") }
            DataHandler.delivered.append(count)
        }
        return reply
    }
}

@Suite("Data answers: written as they are, then what comes after", .serialized)
struct DataAnswerTests {
    static func run(_ stdin: String) -> FunctionRunResult {
        FunctionRunner.run(DataHandler.self, environment: [:], stdin: Array(stdin.utf8))
    }

    @Test func theDataIsTheAnswerAndWhatComesAfterRunsOnce() {
        DataHandler.delivered = []
        let result = Self.run(#"{"lines": ["a,b", "c"]}"#)
        #expect(result.exitCode == 0)
        #expect(result.stdoutText == "a,b\nc\n")
        #expect(DataHandler.delivered == [2])
    }

    @Test func nothingToWriteWritesNothing() {
        DataHandler.delivered = []
        let result = Self.run(#"{"lines": []}"#)
        #expect(result.exitCode == 0)
        #expect(result.stdoutText.isEmpty, "not `{}`: an empty export has no line")
        #expect(DataHandler.delivered == [0])
    }

    @Test func aFailureAfterTheDataIsOutIsLoggedAndExits75() {
        DataHandler.delivered = []
        let result = Self.run(#"{"lines": ["x"], "failAfter": true}"#)
        #expect(result.stdoutText == "x\n", "the data was out already")
        #expect(result.exitCode == 75)
        #expect(result.logLines.contains { $0.contains(#""event":"after_answer_failed""#) && $0.contains("store_unavailable") })
        #expect(DataHandler.delivered.isEmpty)
    }
}
