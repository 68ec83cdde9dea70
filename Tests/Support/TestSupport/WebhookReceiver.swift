import Foundation

/// Tests/Support/fakes/webhook_receiver.py in a child process on 127.0.0.1 and a free port:
/// an app's backend that verifies every delivery with the `standardwebhooks` package and
/// answers as the test says (`configure`). Stop it with `stop()`; it also ends with the test process.
public final class WebhookReceiver: @unchecked Sendable {
    public static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fakes/webhook_receiver.py").path

    /// One delivery as the receiver saw it.
    public struct Delivery: Sendable, Equatable {
        public var path: String
        public var id: String
        public var timestamp: Int64?
        public var verified: Bool
        public var detail: String
        public var answer: String
        public var attempt: Int
        public var sequence: Int64?
        public var type: String?
        public var customerId: String?
        /// The event's `customer.version`.
        public var version: Int64?
        public var text: String?
        public var signatures: Int
        public var contentType: String?
    }

    /// How one path answers: the n-th request with the same webhook-id gets `attempts[n-1]`
    /// ("500", "hang", "200", ...), later ones `otherwise`.
    public struct Behaviour: Sendable {
        public var attempts: [String]
        public var otherwise: String
        public var hangSeconds: Double
        /// Only these webhook-ids follow `attempts` (nil: every one).
        public var ids: [String]?

        public init(attempts: [String] = [], otherwise: String = "200", hangSeconds: Double = 3, ids: [String]? = nil) {
            self.attempts = attempts
            self.otherwise = otherwise
            self.hangSeconds = hangSeconds
            self.ids = ids
        }
    }

    public let port: Int
    public let directory: URL
    private let process: SpawnedProcess
    private var behaviours: [String: Behaviour] = [:]
    private var now: Int64?

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// `secrets`: path → the secret the backend knows for it (`whsec_...`).
    public init(secrets: [String: String]) throws {
        guard let python = FakeVerifyReceiptServer.python else { throw SpawnedProcess.Failure("python3 is not on PATH") }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("webhook-receiver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let portFile = directory.appendingPathComponent("port").path
        var arguments = [Self.script, "--port-file", portFile, "--log", directory.appendingPathComponent("deliveries.log").path,
                         "--control", directory.appendingPathComponent("control.json").path]
        for (path, secret) in secrets.sorted(by: { $0.key < $1.key }) { arguments += ["--secret", "\(path)=\(secret)"] }
        // `make deps` installs standardwebhooks into var/python (see the Makefile).
        process = try SpawnedProcess.spawn(python, arguments, environment: PythonPeers.environment,
                                           stderr: directory.appendingPathComponent("stderr.log").path)
        port = try process.awaitPort(in: portFile, stderrFile: directory.appendingPathComponent("stderr.log").path,
                                     name: "the webhook receiver")
    }

    /// How `path` answers from now on.
    public func configure(_ path: String, _ behaviour: Behaviour) throws {
        behaviours[path] = behaviour
        try writeControl()
    }

    /// The time the receiver checks `webhook-timestamp` against (epoch seconds): the
    /// function's STOREKEEPER_NOW. Nil: the real clock.
    public func setNow(_ seconds: Int64?) throws {
        now = seconds
        try writeControl()
    }

    private func writeControl() throws {
        var paths: [String: Any] = [:]
        for (path, behaviour) in behaviours {
            var entry: [String: Any] = ["attempts": behaviour.attempts, "otherwise": behaviour.otherwise,
                                        "hangSeconds": behaviour.hangSeconds]
            if let ids = behaviour.ids { entry["ids"] = ids }
            paths[path] = entry
        }
        var control: [String: Any] = ["paths": paths]
        if let now { control["now"] = now }
        let temporary = directory.appendingPathComponent("control.json.tmp")
        try JSONSerialization.data(withJSONObject: control).write(to: temporary)
        _ = rename(temporary.path, directory.appendingPathComponent("control.json").path)
    }

    /// Every delivery so far, in the order received; `path` narrows to one endpoint.
    public func deliveries(_ path: String? = nil) -> [Delivery] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("deliveries.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> Delivery? in
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            func number(_ key: String) -> Int64? { (entry[key] as? NSNumber)?.int64Value ?? (entry[key] as? String).flatMap { Int64($0) } }
            return Delivery(
                path: entry["path"] as? String ?? "", id: entry["id"] as? String ?? "", timestamp: number("timestamp"),
                verified: entry["verified"] as? Bool ?? false, detail: entry["detail"] as? String ?? "",
                answer: entry["answer"] as? String ?? "", attempt: Int(number("attempt") ?? 0), sequence: number("sequence"),
                type: entry["type"] as? String, customerId: entry["customerId"] as? String, version: number("version"), text: entry["text"] as? String,
                signatures: Int(number("signatures") ?? 0), contentType: entry["contentType"] as? String)
        }.filter { path == nil || $0.path == path }
    }

    public func stop() {
        process.killAndWait()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
