import Foundation

/// Tests/Support/http/test_server.py in a child process, on 127.0.0.1 and a free port.
///
/// The server exits when its stdin closes, so a test process that ends (or crashes) never
/// leaves one behind; `stop()` ends it earlier.
final class TestHTTPServer: @unchecked Sendable {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Support/http/test_server.py")

    /// Shared by the suites, started on first use.
    static let plain = Result { try TestHTTPServer() }
    /// HTTPS with a certificate for 127.0.0.1 and localhost from its own test CA.
    static let tls = Result { try TestHTTPServer(tls: true) }
    /// HTTPS whose certificate names another host (and comes from another CA).
    static let wrongName = Result { try TestHTTPServer(tls: true, subjectAltName: "DNS:wrong.example") }

    let port: Int
    let isTLS: Bool
    /// The temporary folder with the server's log and, with TLS, its certificates; the
    /// server removes it when it exits.
    let directory: URL
    // Touched only in init and under `lock` in stop(); hence @unchecked Sendable.
    private let process: Process
    private let input: Pipe
    private let lock = NSLock()

    /// The test CA that issued the server certificate (TLS only).
    var caBundlePath: String { directory.appendingPathComponent("ca.pem").path }

    init(tls: Bool = false, subjectAltName: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("storekeeper-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)  // FileHandle below reports a failure

        var arguments = ["python3", Self.script.path, "--cleanup", directory.path]
        if tls { arguments += ["--tls", directory.path] }
        if let subjectAltName { arguments += ["--san", subjectAltName] }
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        // A file, not a pipe: nobody drains it during the tests, and it is there to read
        // when something goes wrong.
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        isTLS = tls

        // The first stdout line is the port; EOF first means the server did not start.
        var line = Data()
        let reader = output.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text), port > 0 else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let details = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw StartFailure(message: "test server did not report a port (got \"\(text)\"): \(details)")
        }
        self.port = port
    }

    func url(_ path: String) -> String {
        "\(isTLS ? "https" : "http")://127.0.0.1:\(port)\(path)"
    }

    /// Ends the server and waits for it; afterwards its port refuses connections.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard process.isRunning else { return }
        // Closing stdin is the server's signal to exit; SIGKILL if it has not within 10 s.
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline {
            usleep(10_000)
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    struct StartFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
