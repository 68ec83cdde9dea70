import Foundation
import Glibc

/// The fake App Store Server API (Tests/Support/fakes/fake_app_store.py) on a free loopback
/// port: started with a scenario file, controlled over its /control endpoints (faults to
/// inject, the log of what it received), killed on `stop()` or deinit.
public final class FakeAppStore: @unchecked Sendable {
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The scenario most tests use.
    public static let defaultScenario = repositoryRoot.appendingPathComponent("Tests/Support/fakes/scenarios/default.json").path
    public static let apiKeyPath = repositoryRoot.appendingPathComponent("Tests/Fixtures/pki/appstore-api-key.p8").path
    public static let keyId = "TESTKEY123"
    public static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"
    public static let bundleId = "com.example.storekeeper"
    public static let appAppleId = "1234567890"

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    public let port: Int
    private let process: SpawnedProcess
    private let scratch: URL

    /// Production answers here, the sandbox under `/sandbox`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public static func start(scenario: String = defaultScenario) throws -> FakeAppStore {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("fake-app-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let output = scratch.appendingPathComponent("stdout").path
        let errors = scratch.appendingPathComponent("stderr").path
        let pki = repositoryRoot.appendingPathComponent("Tests/Fixtures/pki").path
        let process = try SpawnedProcess.spawn(
            "/usr/bin/env",
            ["python3", repositoryRoot.appendingPathComponent("Tests/Support/fakes/fake_app_store.py").path,
             "--scenario", scenario, "--api-key-public", pki + "/appstore-api-key.pub.pem", "--pki", pki],
            stdout: output, stderr: errors)
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: output, encoding: .utf8),
               let line = text.split(separator: "\n").first, let port = Int(line) {
                let fake = FakeAppStore(port: port, process: process, scratch: scratch)
                _ = try fake.control("GET", "/control/ready")
                return fake
            }
            if process.poll() != nil { break }
            usleep(20_000)
        }
        _ = process.killAndWait()
        let log = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        throw Failure("the fake App Store did not start: \(log)")
    }

    private init(port: Int, process: SpawnedProcess, scratch: URL) {
        self.port = port
        self.process = process
        self.scratch = scratch
    }

    deinit { stop() }

    public func stop() {
        if process.poll() == nil { _ = process.killAndWait() }
        try? FileManager.default.removeItem(at: scratch)
    }

    /// The next API requests answer these faults in turn, e.g. `["kind": "status",
    /// "status": 429, "retryAfter": 1]`, `["kind": "hang", "seconds": 3]`, `["kind": "drop"]`.
    public func queueFaults(_ faults: [[String: Any]]) throws {
        _ = try control("POST", "/control/faults", json: ["faults": faults])
    }

    /// Drops the faults no request has taken yet.
    public func clearFaults() throws {
        _ = try control("POST", "/control/faults/clear")
    }

    /// Every API request received since the start (or the last `clearLog()`).
    public func requests() throws -> [[String: Any]] {
        let answer = try control("GET", "/control/log")
        return (answer["requests"] as? [[String: Any]]) ?? []
    }

    public func clearLog() throws {
        _ = try control("POST", "/control/log/clear")
    }

    /// Every Date header the fake sends from now on is `seconds` from the real time: a host
    /// whose clock is off.
    public func setClockOffset(seconds: Double) throws {
        _ = try control("POST", "/control/clock", json: ["offsetSeconds": seconds])
    }

    public func loadScenario(_ scenario: [String: Any]) throws {
        _ = try control("POST", "/control/scenario", json: scenario)
    }

    /// One control request over a plain socket (HTTP/1.1, Connection: close).
    @discardableResult
    public func control(_ method: String, _ path: String, json: Any? = nil) throws -> [String: Any] {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        var request = Data("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        request.append(body)

        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure("cannot connect to the fake App Store on \(port)") }
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response.append(contentsOf: buffer[0..<count])
        }
        guard let split = response.range(of: Data("\r\n\r\n".utf8)) else { throw Failure("no HTTP answer from the fake") }
        let payload = response[split.upperBound...]
        return (try JSONSerialization.jsonObject(with: payload) as? [String: Any]) ?? [:]
    }
}
