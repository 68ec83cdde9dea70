import Foundation

/// Runs real processes to completion for tests, robust to two traps of Foundation's `Process`
/// on Linux when tests run in parallel:
/// - a child spawned at the same moment by another test inherits copies of our pipes; if it
///   lives long (a redis-server), reading a pipe to its end never finishes. So output goes
///   to files, read once the process has exited.
/// - children inherit the spawning thread's blocked signals (dispatch threads block SIGTERM),
///   so `terminate()` may do nothing. A process past its time limit gets SIGKILL.
enum ChildProcess {
    struct Result {
        var processIdentifier: Int32
        var exitCode: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Starts every command at once and returns when all have exited; after `limit` the ones
    /// still running are killed and this throws (a hang is a failure, never a wait forever).
    /// The waiting happens on a dispatch thread, not on one of the few threads running tests.
    static func runTogether(_ commands: [(executable: String, arguments: [String])],
                            environment: [String: String]? = nil,
                            limit: Duration = .seconds(120)) async throws -> [Result] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result {
                    try runTogetherBlocking(commands, environment: environment, limit: limit)
                })
            }
        }
    }

    static func run(_ executable: String, _ arguments: [String], limit: Duration = .seconds(60)) async throws -> Result {
        guard let result = try await runTogether([(executable, arguments)], limit: limit).first else {
            throw Failure("\(executable) did not run")
        }
        return result
    }

    private static func runTogetherBlocking(_ commands: [(executable: String, arguments: [String])],
                                            environment: [String: String]?, limit: Duration) throws -> [Result] {
        let folder = try TestDirectory.newFolder()
        let group = DispatchGroup()
        var started: [(process: Process, stdout: String, stderr: String)] = []
        for (index, command) in commands.enumerated() {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: command.executable)
            process.arguments = command.arguments
            if let environment { process.environment = environment }
            let stdout = "\(folder)/\(index).out", stderr = "\(folder)/\(index).err"
            guard FileManager.default.createFile(atPath: stdout, contents: nil),
                  FileManager.default.createFile(atPath: stderr, contents: nil),
                  let out = FileHandle(forWritingAtPath: stdout), let err = FileHandle(forWritingAtPath: stderr) else {
                throw Failure("cannot create output files in \(folder)")
            }
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            group.enter()
            process.terminationHandler = { _ in group.leave() }
            do {
                try process.run()
            } catch {
                group.leave()
                throw error
            }
            // The child has its own copies now.
            try out.close()
            try err.close()
            started.append((process, stdout, stderr))
        }
        if group.wait(timeout: .now() + Double(limit.components.seconds)) == .timedOut {
            for entry in started where entry.process.isRunning { kill(entry.process.processIdentifier, SIGKILL) }
            throw Failure("\(commands.first?.executable ?? "") still running after \(limit): killed")
        }
        return started.map { entry in
            Result(processIdentifier: entry.process.processIdentifier,
                   exitCode: entry.process.terminationStatus,
                   stdout: (try? String(contentsOfFile: entry.stdout, encoding: .utf8)) ?? "",
                   stderr: (try? String(contentsOfFile: entry.stderr, encoding: .utf8)) ?? "")
        }
    }
}
