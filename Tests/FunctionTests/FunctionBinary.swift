import Foundation

/// A built function binary run as a black box: environment in, stdin in, stdout, stderr and
/// exit status out. stdout and stderr are drained concurrently so a chatty process never
/// blocks on a full pipe.
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
    func run(stdin: Data, environment: [String: String] = [:], arguments: [String] = []) throws -> Result {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.currentDirectoryURL = Self.repositoryRoot
        var env = environment
        env["PATH"] = env["PATH"] ?? "/usr/bin:/bin"
        process.environment = env
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()

        let group = DispatchGroup()
        nonisolated(unsafe) var stdoutData = Data()
        nonisolated(unsafe) var stderrData = Data()
        group.enter()
        DispatchQueue.global().async {
            stdoutData = output.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            stderrData = errors.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        // The process may exit before reading all its input (an early error): ignore EPIPE.
        signal(SIGPIPE, SIG_IGN)
        try? input.fileHandleForWriting.write(contentsOf: stdin)
        try? input.fileHandleForWriting.close()
        group.wait()
        process.waitUntilExit()
        return Result(stdout: stdoutData, stderr: stderrData, exitCode: process.terminationStatus)
    }
}
