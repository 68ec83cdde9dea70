import Foundation
import Testing

/// Runs every `functions/<name>/examples/*.json` against the built binary. An example is
/// `{"description", "environment": {...}, "request": {...} | "stdin": "raw text",
///   "response": {...} | "responseLines": [...] | "responseText": "exact text", "exitCode": N}`;
/// the string "<<any>>" in an expected response matches any value (signatures are random).
@Suite("Golden examples through the built binaries")
struct GoldenExampleTests {
    struct Example: CustomTestStringConvertible {
        let function: String
        let file: URL
        var testDescription: String { "\(function)/\(file.lastPathComponent)" }
    }

    static let examples: [Example] = FunctionBinary.functionNames.flatMap { name -> [Example] in
        let folder = FunctionBinary.repositoryRoot.appendingPathComponent("functions/\(name)/examples")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.sorted().map {
            Example(function: name, file: folder.appendingPathComponent($0))
        }
    }

    @Test func everyFunctionHasExamples() {
        for name in FunctionBinary.functionNames {
            #expect(Self.examples.contains { $0.function == name }, "functions/\(name)/examples has no example")
        }
    }

    @Test(arguments: examples)
    func example(_ example: Example) throws {
        let spec = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: example.file)) as? [String: Any])
        var environment = spec["environment"] as? [String: String] ?? [:]
        // Each example gets a store of its own unless it names one.
        if environment["STORE_URL"] == nil {
            environment["STORE_URL"] = "sqlite:" + FileManager.default.temporaryDirectory
                .appendingPathComponent("storekeeper-example-\(UUID().uuidString).db").path
        }
        let stdin: Data
        if let raw = spec["stdin"] as? String {
            stdin = Data(raw.utf8)
        } else {
            stdin = try JSONSerialization.data(withJSONObject: try #require(spec["request"]), options: [.fragmentsAllowed])
        }
        let result = try FunctionBinary(name: example.function).run(stdin: stdin, environment: environment)
        #expect(result.exitCode == (spec["exitCode"] as? Int32 ?? 0), "stderr: \(result.stderrText)")

        if let text = spec["responseText"] as? String {
            // A text answer (metrics' Prometheus exposition), compared whole.
            #expect(result.stdoutText == text)
            return
        }
        let expectedLines: [Any]
        if let lines = spec["responseLines"] as? [Any] {
            expectedLines = lines
        } else {
            expectedLines = [try #require(spec["response"])]
        }
        let actualLines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(actualLines.count == expectedLines.count, "stdout: \(result.stdoutText)")
        for (actual, expected) in zip(actualLines, expectedLines) {
            let decoded = try JSONSerialization.jsonObject(with: Data(actual.utf8), options: [.fragmentsAllowed])
            #expect(JSONMatch.matches(decoded, expected), "got \(actual)")
        }
        for line in result.stderrText.split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "stderr line is not JSON: \(line)")
        }
    }
}

/// Structural JSON equality with a wildcard.
enum JSONMatch {
    static let wildcard = "<<any>>"

    static func matches(_ actual: Any, _ expected: Any) -> Bool {
        if let expected = expected as? String, expected == wildcard { return true }
        switch (actual, expected) {
        case let (actual as [String: Any], expected as [String: Any]):
            return actual.keys.sorted() == expected.keys.sorted()
                && expected.allSatisfy { key, value in actual[key].map { matches($0, value) } ?? false }
        case let (actual as [Any], expected as [Any]):
            return actual.count == expected.count && zip(actual, expected).allSatisfy(matches)
        case let (actual as NSNumber, expected as NSNumber):
            return actual == expected
        case let (actual as String, expected as String):
            return actual == expected
        case (is NSNull, is NSNull):
            return true
        default:
            return false
        }
    }
}
