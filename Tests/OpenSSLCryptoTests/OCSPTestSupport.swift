import Foundation
import OpenSSLCrypto

/// The committed test PKI (Tests/Fixtures/pki; OCSP pieces from make-ocsp-fixtures.sh).
enum OCSPFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pki")

    /// The tools the OCSP tests drive: the responder, the HTTP client, the time bound.
    static let toolsAvailable = OpenSSLCLI.isAvailable
        && ["/usr/bin/curl", "/usr/bin/timeout"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    static func path(_ file: String) -> String {
        directory.appendingPathComponent(file).path
    }

    static func certificate(_ stem: String) throws -> Certificate {
        let certificates = try Certificate.load(path: path("\(stem).pem"))
        guard certificates.count == 1 else { throw OpenSSLCLI.Failure(description: "\(stem).pem holds \(certificates.count) certificates") }
        return certificates[0]
    }

    static func trustStore() throws -> TrustStore {
        try TrustStore(roots: [certificate("root")])
    }
}

/// A real `openssl ocsp` responder on a free loopback port, for one test. Bounded by
/// `timeout` so it cannot outlive a crashed test run; `stop()` (or deinit) ends it.
/// (OpenSSL 3.0's `-port` takes only a number, so it listens on every address; the tests
/// talk to it on 127.0.0.1.)
///
/// SIGKILL throughout: children spawned from a test inherit the spawning thread's signal
/// mask, in which Dispatch's worker threads block SIGTERM, so a SIGTERM (Process.terminate,
/// or timeout's default signal) stays pending forever and the test hangs in waitUntilExit.
final class OCSPResponder {
    struct Configuration {
        /// `openssl ca` database: "index.txt" (the intermediate's) or "root-index.txt".
        var index = "index.txt"
        /// The CA whose certificates it answers for.
        var ca = "intermediate"
        /// Stem of the signing certificate and key.
        var signer = "ocsp-responder"
        /// Extra certificates put into every response (-rother).
        var otherCertificates: [String] = []
        /// nextUpdate = thisUpdate + days; nil leaves nextUpdate out.
        var days: Int? = 1
    }

    let port: UInt16
    private let process: Process
    private let log: URL
    private let scratch: URL

    var url: String { "http://127.0.0.1:\(port)/" }

    init(_ configuration: Configuration = Configuration()) throws {
        scratch = try makeTemporaryDirectory("ocsp-responder")
        log = scratch.appendingPathComponent("responder.log")
        var lastFailure = "never started"
        // A port found free can be taken before openssl binds it; then try another.
        for _ in 0..<5 {
            let port = try Self.freeLoopbackPort()
            var arguments = ["--signal=KILL", "60", OpenSSLCLI.path ?? "openssl", "ocsp", "-port", "\(port)",
                             "-index", configuration.index, "-CA", "\(configuration.ca).pem",
                             "-rsigner", "\(configuration.signer).pem", "-rkey", "\(configuration.signer).key"]
            if let days = configuration.days { arguments += ["-ndays", "\(days)"] }
            if !configuration.otherCertificates.isEmpty {
                // -rother takes one file: put them together.
                let bundle = scratch.appendingPathComponent("other.pem")
                let text = try configuration.otherCertificates
                    .map { try String(contentsOfFile: OCSPFixtures.path("\($0).pem"), encoding: .utf8) }
                    .joined()
                try text.write(to: bundle, atomically: true, encoding: .utf8)
                arguments += ["-rother", bundle.path]
            }
            FileManager.default.createFile(atPath: log.path, contents: nil)
            let output = try FileHandle(forWritingTo: log)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
            process.arguments = arguments
            process.currentDirectoryURL = OCSPFixtures.directory
            process.standardOutput = output
            process.standardError = output
            try process.run()
            try? output.close()
            if Self.waitUntilListening(process, log: log) {
                self.port = port
                self.process = process
                return
            }
            Self.kill(process)
            lastFailure = (try? String(contentsOf: log, encoding: .utf8)) ?? "no output"
        }
        removeTemporaryDirectory(scratch)
        throw OpenSSLCLI.Failure(description: "openssl ocsp did not start: \(lastFailure)")
    }

    deinit { stop() }

    func stop() {
        Self.kill(process)
        removeTemporaryDirectory(scratch)
    }

    /// `timeout` makes itself a process group leader before it starts openssl, so killing
    /// that group (its pid) ends both; the second kill covers a `timeout` that had not got
    /// that far.
    private static func kill(_ process: Process) {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        _ = Glibc.kill(-pid, SIGKILL)
        _ = Glibc.kill(pid, SIGKILL)
        process.waitUntilExit()
    }

    /// POSTs `request` (DER) as application/ocsp-request and returns the body of the answer.
    func ask(_ request: [UInt8]) throws -> [UInt8] {
        let file = scratch.appendingPathComponent("request-\(UUID().uuidString).der")
        let answer = scratch.appendingPathComponent("response-\(UUID().uuidString).der")
        try Data(request).write(to: file)
        try runTool("/usr/bin/curl", [
            "--silent", "--show-error", "--fail", "--max-time", "10",
            "--header", "Content-Type: \(OCSPRequest.contentType)",
            "--data-binary", "@\(file.path)", "--output", answer.path, url,
        ])
        return [UInt8](try Data(contentsOf: answer))
    }

    /// The responder's answer about `certificate` from `issuer`.
    func ask(about certificate: Certificate, issuer: Certificate, nonce: Bool = false) throws -> (OCSPRequest, [UInt8]) {
        let request = try OCSPRequest.make(for: certificate, issuer: issuer, nonce: nonce)
        return (request, try ask(request.der))
    }

    /// Waits for openssl's "waiting for OCSP client connections" (it binds first), or its exit.
    private static func waitUntilListening(_ process: Process, log: URL) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if text.contains("waiting for OCSP client connections") { return process.isRunning }
            if !process.isRunning { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// A TCP port nobody listens on right now: bind port 0 on 127.0.0.1, read it, let go.
    private static func freeLoopbackPort() throws -> UInt16 {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw OpenSSLCLI.Failure(description: "socket() failed: errno \(errno)") }
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(socketFD, socketAddress, length) == 0 && getsockname(socketFD, socketAddress, &length) == 0
            }
        }
        guard bound else { throw OpenSSLCLI.Failure(description: "bind() failed: errno \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }
}

/// Runs a command-line tool to completion; throws with its stderr when it fails.
/// For tools with little output (stdout is discarded; stderr is read after exit).
func runTool(_ executable: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let errors = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw OpenSSLCLI.Failure(description: "\(executable) \(arguments.joined(separator: " ")) failed: "
            + String(decoding: errorData, as: UTF8.self))
    }
}
