import Foundation

/// Tests/Support/fakes/fake_verify_receipt.py in a child process on 127.0.0.1 and a free
/// port: Apple's legacy verifyReceipt endpoint, production under `/buy`, sandbox under
/// `/sandbox`. It checks the shared secret and verifies the receipt it is sent against the
/// given roots, so a wrong request gets Apple's status for it. Stop it with `stop()`
/// (SIGKILL); it also ends with the test process.
public final class FakeVerifyReceiptServer: @unchecked Sendable {
    public static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fakes/fake_verify_receipt.py").path

    public static let python: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin"] {
            let candidate = "\(directory)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    public let port: Int
    public let directory: URL
    private let process: SpawnedProcess

    /// The base URL to give `VerifyReceiptClient.Endpoints.under` (APPSTORE_VERIFY_RECEIPT_URL).
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// `renewals`: pending_renewal_info fields per original transaction id.
    public init(secret: String, rootsPath: String, renewals: [String: [String: String]] = [:]) throws {
        guard let python = Self.python else { throw SpawnedProcess.Failure("python3 is not on PATH") }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fake-verify-receipt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let portFile = directory.appendingPathComponent("port").path
        let renewalsFile = directory.appendingPathComponent("renewals.json")
        try JSONSerialization.data(withJSONObject: renewals).write(to: renewalsFile)
        process = try SpawnedProcess.spawn(python, [
            Self.script, "--secret", secret, "--roots", rootsPath, "--port-file", portFile,
            "--renewals", renewalsFile.path, "--log", directory.appendingPathComponent("requests.log").path,
        ], stderr: directory.appendingPathComponent("stderr.log").path)
        port = try process.awaitPort(in: portFile, stderrFile: directory.appendingPathComponent("stderr.log").path,
                                     name: "fake verifyReceipt")
    }

    /// What it was asked, one entry a request: path, the status it answered, and
    /// exclude-old-transactions.
    public func requests() -> [[String: Any]] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("requests.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    public func stop() {
        process.killAndWait()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
