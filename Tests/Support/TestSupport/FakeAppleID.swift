import Foundation

/// Tests/Support/fakes/fake_apple_id.py in a child process on 127.0.0.1 and a port it chose
/// itself (it writes the port to a file once it listens). Killed with SIGKILL by `stop()` or
/// when the object goes away; it also exits on its own when the test process does.
public final class FakeAppleID: @unchecked Sendable {
    public static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fakes/fake_apple_id.py")
    static let pki = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pki")

    /// A python3 that has the `cryptography` package (`make deps`), or nil.
    public static let python: String? = {
        for candidate in ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            let probe = try? SpawnedProcess.spawn(candidate, ["-c", "import cryptography"])
            if probe?.waitOrKill(limit: 30).termination == .exited(0) { return candidate }
        }
        return nil
    }()

    public let port: Int
    public let teamId: String
    public let keyId: String
    public let clientIds: [String]
    public let folder: URL
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var logFile: URL { folder.appendingPathComponent("fake.log") }
    private let process: SpawnedProcess

    /// Starts the fake; it accepts client secrets signed by Tests/Fixtures/pki/siwa-key.p8 with
    /// `keyId` and `teamId` for `clientIds`, and signs identity tokens with appleid-rsa.key.
    public init(teamId: String = "TEAM123456", keyId: String = "KEY1234567",
                clientIds: [String] = ["com.example.web", "com.example.storekeeper"]) throws {
        guard let python = Self.python else { throw SpawnedProcess.Failure("python3 with the cryptography package is not installed (make deps)") }
        self.teamId = teamId
        self.keyId = keyId
        self.clientIds = clientIds
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-fake-appleid-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let portFile = folder.appendingPathComponent("port")
        process = try SpawnedProcess.spawn(python, [
            Self.script.path, "--port-file", portFile.path, "--team-id", teamId, "--key-id", keyId,
            "--client-ids", clientIds.joined(separator: ","),
            "--client-key-pub", Self.pki.appendingPathComponent("siwa-key.pub.pem").path,
            "--signing-key", Self.pki.appendingPathComponent("appleid-rsa.key").path,
        ], stdout: folder.appendingPathComponent("fake.log").path, stderr: folder.appendingPathComponent("fake.log").path)
        let deadline = Date().addingTimeInterval(20)
        var found: Int?
        while Date() < deadline {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text), port > 0 { found = port; break }
            if let ended = process.poll() {
                throw SpawnedProcess.Failure("fake_apple_id.py ended (\(ended)): \((try? String(contentsOf: folder.appendingPathComponent("fake.log"), encoding: .utf8)) ?? "")")
            }
            usleep(20_000)
        }
        guard let found else {
            process.killAndWait()
            throw SpawnedProcess.Failure("fake_apple_id.py wrote no port within 20 s")
        }
        port = found
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    public func stop() {
        process.killAndWait()
    }
}
