/// What an in-process run wrote and returned, as a test sees a process.
public struct FunctionRunResult: Sendable {
    public let exitCode: Int32
    public let stdout: [UInt8]
    public let stderr: [UInt8]

    public init(exitCode: Int32, stdout: [UInt8], stderr: [UInt8]) {
        self.exitCode = exitCode
        self.stdout = stdout
        self.stderr = stderr
    }

    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }

    /// One answer per line in direct and event mode.
    public var stdoutLines: [String] {
        stdoutText.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// The JSON log lines written to stderr.
    public var logLines: [String] {
        String(decoding: stderr, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }
}
