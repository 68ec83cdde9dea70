import Foundation

/// A built function binary run as a black box: environment in, stdin in, stdout, stderr and
/// exit status out.
struct FunctionBinary {
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Where the binaries are: STOREKEEPER_BIN_DIR, or the debug build folder.
    static let binDirectory: URL = {
        if let path = ProcessInfo.processInfo.environment["STOREKEEPER_BIN_DIR"] {
            return URL(fileURLWithPath: path)
        }
        return repositoryRoot.appendingPathComponent(".build/debug")
    }()

    /// Whether the binaries are a release build (SwiftPM's release folder, as `make
    /// test-release` names it), which links its C libraries statically.
    static var isReleaseBuild: Bool { binDirectory.standardizedFileURL.lastPathComponent == "release" }

    static var functionNames: [String] {
        let folder = repositoryRoot.appendingPathComponent("functions")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    struct Result {
        var stdout: Data
        var stderr: Data
        var exitCode: Int32
        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }

    let name: String
    var url: URL { Self.binDirectory.appendingPathComponent(name) }

    /// Runs the binary with exactly `environment` (plus PATH), in the repository root, so
    /// relative fixture paths in examples resolve.
    ///
    /// stdin, stdout and stderr are files, not pipes: tests run in parallel in one process,
    /// and a long-lived child started by another test at the same moment (a redis-server)
    /// can inherit a pipe's write end, so reading a pipe to its end might never finish.
    ///
    /// `launcher`: an executable and its arguments to run instead, which themselves run this
    /// binary (a resource limit in front of it, say).
    func run(stdin: Data, environment: [String: String] = [:], arguments: [String] = [],
             launcher: (executable: String, arguments: [String])? = nil) throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("fn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inputURL = scratch.appendingPathComponent("stdin")
        let outputURL = scratch.appendingPathComponent("stdout")
        let errorURL = scratch.appendingPathComponent("stderr")
        try stdin.write(to: inputURL)
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)

        let process = Process()
        process.executableURL = launcher.map { URL(fileURLWithPath: $0.executable) } ?? url
        process.arguments = launcher?.arguments ?? arguments
        process.currentDirectoryURL = Self.repositoryRoot
        var env = environment
        env["PATH"] = env["PATH"] ?? "/usr/bin:/bin"
        process.environment = env
        let input = try FileHandle(forReadingFrom: inputURL)
        let output = try FileHandle(forWritingTo: outputURL)
        let errors = try FileHandle(forWritingTo: errorURL)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        try? input.close()
        try? output.close()
        try? errors.close()
        process.waitUntilExit()
        return Result(stdout: try Data(contentsOf: outputURL), stderr: try Data(contentsOf: errorURL),
                      exitCode: process.terminationStatus)
    }
}
