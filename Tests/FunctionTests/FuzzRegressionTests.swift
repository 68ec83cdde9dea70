import Foundation
import Testing

/// Replays every committed fuzz input, fuzz/corpus/<target>/ and fuzz/regressions/<target>/,
/// through the entry logic the libFuzzer executables run (FuzzEntries.swift here is a link to
/// fuzz/Sources/FuzzEntries/FuzzEntries.swift), so an input that once crashed stays fixed
/// without a sanitizer build. A crash fails the run; a broken invariant is an issue.
@Suite("Fuzz inputs replayed in process")
struct FuzzRegressionTests {
    /// Tests/FunctionTests/FuzzRegressionTests.swift → fuzz/
    static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fuzz")

    struct Input: Sendable, CustomTestStringConvertible {
        let target: FuzzTarget
        /// Relative to fuzz/, e.g. `regressions/cgi/crash-5f1e…`.
        let path: String
        var testDescription: String { path }
        var name: String { (path as NSString).lastPathComponent }
    }

    static let inputs: [Input] = FuzzTarget.allCases.flatMap { target in
        ["corpus", "regressions"].flatMap { folder in
            let relative = "\(folder)/\(target.rawValue)"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: fuzzDirectory.appendingPathComponent(relative).path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { Input(target: target, path: "\(relative)/\($0)") }
        }
    }

    @Test func everyTargetHasSeeds() {
        for target in FuzzTarget.allCases {
            #expect(Self.inputs.contains { $0.target == target && $0.path.hasPrefix("corpus/") },
                    "fuzz/corpus/\(target.rawValue)/ is empty or missing: run fuzz/make-seeds.sh")
        }
    }

    @Test(arguments: inputs)
    func replays(_ input: Input) throws {
        let bytes = Array(try Data(contentsOf: Self.fuzzDirectory.appendingPathComponent(input.path)))
        let outcome: String
        do {
            outcome = try input.target.run(bytes)
        } catch let finding as FuzzFinding {
            Issue.record("fuzz-\(input.target.rawValue) \(input.path): \(finding)")
            return
        }
        // Seeds named valid-* are there to carry mutations past every check; if one is
        // rejected (a regenerated PKI, a stale seed), the fuzzer silently explores less.
        guard input.name.hasPrefix("valid-") else { return }
        switch input.target {
        case .jwsVerify:
            #expect(outcome.hasPrefix("accepted"), "\(input.path): \(outcome); rerun fuzz/make-seeds.sh")
        case .verifySignedData:
            #expect(outcome == "exit 0", "\(input.path): \(outcome); rerun fuzz/make-seeds.sh")
        case .receiptReader:
            #expect(outcome.hasPrefix("verified"), "\(input.path): \(outcome); rerun fuzz/make-seeds.sh")
        case .identityToken:
            #expect(outcome.contains("accepted"), "\(input.path): \(outcome); rerun fuzz/make-seeds.sh")
        case .ocspResponse:
            #expect(outcome.contains("answered"), "\(input.path): \(outcome); rerun fuzz/make-seeds.sh")
        case .catalog:
            #expect(outcome.hasPrefix("accepted"), "\(input.path): \(outcome); rerun fuzz/make-seeds.sh")
        case .frontDoors, .cgi:
            #expect(outcome.contains("exit 0"), "\(input.path): \(outcome)")
        }
    }
}
