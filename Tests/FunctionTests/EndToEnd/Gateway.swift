import Foundation
import HTTPTransport
import StorekeeperCore
import TestSupport

/// A real web server in front of the built function binaries on a free loopback port, in one
/// of the two shipped set-ups (`Kind`): lighttpd running them as CGI, configured by
/// `infra/gateway/render-config.sh` (the environment passed through lighttpd's own), or nginx
/// passing requests over FastCGI to long-running function processes, configured by
/// `infra/nginx/render-config.sh`, each function started on its Unix socket the way
/// `infra/nginx/nginx.sh` does (spawn-fcgi hands it the socket as stdin). What the scripts do,
/// but every server is a SpawnedProcess of the test, stopped and reaped when the test ends.
final class Gateway: @unchecked Sendable {
    /// The two gateways the end-to-end tests run against.
    enum Kind: String, CaseIterable, CustomStringConvertible, Sendable {
        case lighttpdCGI = "lighttpd+CGI"
        case nginxFastCGI = "nginx+FastCGI"
        var description: String { rawValue }
    }

    static let nginx = installed("nginx", override: "NGINX")
    static let spawnFCGI = installed("spawn-fcgi", override: "SPAWN_FCGI")

    /// `override` (an environment variable) when set, and then exactly that, else the usual places.
    static func installed(_ name: String, override: String) -> String? {
        if let path = ProcessInfo.processInfo.environment[override] {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        for directory in ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"] {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// LIGHTTPD when set (and then exactly that one), else the usual places.
    static let executable: String? = {
        if let path = ProcessInfo.processInfo.environment["LIGHTTPD"] {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        for directory in ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"] {
            let candidate = "\(directory)/lighttpd"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    let kind: Kind
    let port: Int
    let state: URL
    var baseURL: String { "http://127.0.0.1:\(port)" }
    /// lighttpd's stderr, which its CGI children inherit, or the FastCGI functions' own
    /// stderr: the functions' JSON log lines.
    var logFile: URL { state.appendingPathComponent("functions.log") }
    private let process: SpawnedProcess
    /// The long-running function processes (FastCGI): `childrenPerFunction` per routed function.
    private(set) var functions: [String: [SpawnedProcess]] = [:]
    static let childrenPerFunction = 2

    private init(kind: Kind, port: Int, state: URL, process: SpawnedProcess, functions: [String: [SpawnedProcess]] = [:]) {
        self.kind = kind
        self.port = port
        self.state = state
        self.process = process
        self.functions = functions
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: state)
    }

    /// Renders the configuration from `environment` and starts the server (and, for FastCGI,
    /// the functions); returns once it accepts connections.
    static func start(environment: [String: String], kind: Kind = .lighttpdCGI) throws -> Gateway {
        try E2E.requireTools()
        if kind == .nginxFastCGI { return try startNginx(environment: environment) }
        guard let executable else { throw SpawnedProcess.Failure("lighttpd is not installed") }
        var lastError: any Error = SpawnedProcess.Failure("no attempt made")
        // A free port can be taken between probing and binding: try again on another.
        for _ in 0..<5 {
            let port = try RedisTestServer.freePort()
            let state = try E2E.scratchFolder("gateway")
            do {
                let config = try render(port: port, state: state, environment: environment)
                // The configuration names the variables (env.NAME); lighttpd reads their
                // values from its own environment, as gateway.sh starts it.
                var serverEnvironment = environment
                serverEnvironment["PATH"] = environment["PATH"] ?? "/usr/bin:/bin"
                let process = try SpawnedProcess.spawn(
                    executable, ["-D", "-f", config.path], environment: serverEnvironment,
                    directory: FunctionBinary.repositoryRoot.path,
                    stdout: state.appendingPathComponent("functions.log").path,
                    stderr: state.appendingPathComponent("functions.log").path)
                let gateway = Gateway(kind: .lighttpdCGI, port: port, state: state, process: process)
                try gateway.waitUntilListening()
                return gateway
            } catch {
                lastError = error
                try? FileManager.default.removeItem(at: state)
            }
        }
        throw lastError
    }

    func stop() {
        guard kind == .nginxFastCGI else {
            process.killAndWait()
            return
        }
        // SIGTERM: nginx's master stops its worker (SIGKILL would leave the worker behind), and
        // each function finishes the request it is answering.
        let all = [process] + functions.values.joined()
        for child in all {
            child.send(SIGTERM)
        }
        for child in all where child.wait(seconds: 10) == nil {
            child.killAndWait()
        }
    }

    /// The functions' log lines (JSON objects), in order.
    func logLines() -> [[String: Any]] {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The request lines one function logged (`"event": "request"`, with `status` and `exit`).
    func requestLines(of function: String) -> [[String: Any]] {
        logLines().filter { $0["fn"] as? String == function && $0["event"] as? String == "request" }
    }

    private static func render(port: Int, state: URL, environment: [String: String]) throws -> URL {
        let script = FunctionBinary.repositoryRoot.appendingPathComponent("infra/gateway/render-config.sh").path
        let config = state.appendingPathComponent("lighttpd.conf")
        let errors = state.appendingPathComponent("render.err")
        let renderer = try SpawnedProcess.spawn(
            "/bin/bash", [script, FunctionBinary.binDirectory.path, String(port), state.path],
            environment: environment, directory: FunctionBinary.repositoryRoot.path,
            stdout: config.path, stderr: errors.path)
        let (termination, timedOut) = renderer.waitOrKill(limit: 30)
        guard !timedOut, termination == .exited(0) else {
            let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw SpawnedProcess.Failure("render-config.sh ended with \(termination)\(timedOut ? " (timed out)" : ""): \(message)")
        }
        return config
    }

    private static func startNginx(environment: [String: String]) throws -> Gateway {
        guard let nginx else { throw SpawnedProcess.Failure("nginx is not installed") }
        var lastError: any Error = SpawnedProcess.Failure("no attempt made")
        for _ in 0..<5 {
            let port = try RedisTestServer.freePort()
            let state = try E2E.scratchFolder("nginx")
            var functions: [String: [SpawnedProcess]] = [:]
            do {
                try FileManager.default.createDirectory(at: state.appendingPathComponent("tmp"), withIntermediateDirectories: true)
                for (name, _) in try routedFunctions() {
                    functions[name] = try startFunction(name, children: childrenPerFunction, state: state, environment: environment)
                }
                let config = try renderNginx(port: port, state: state)
                let process = try SpawnedProcess.spawn(
                    nginx, ["-e", state.appendingPathComponent("nginx-error.log").path, "-c", config.path],
                    environment: ["PATH": "/usr/bin:/bin"], directory: state.path,
                    stdout: state.appendingPathComponent("nginx.log").path, stderr: state.appendingPathComponent("nginx.log").path)
                let gateway = Gateway(kind: .nginxFastCGI, port: port, state: state, process: process, functions: functions)
                try gateway.waitUntilListening()
                return gateway
            } catch {
                lastError = error
                for child in functions.values.joined() { child.killAndWait() }
                try? FileManager.default.removeItem(at: state)
            }
        }
        throw lastError
    }

    /// `children` processes of one function on one listening socket, `<state>/<name>.sock`,
    /// handed to each as its stdin: the FastCGI convention, as `spawn-fcgi -F N` starts them.
    static func startFunction(_ name: String, children: Int, state: URL, environment: [String: String],
                              arguments: [String] = []) throws -> [SpawnedProcess] {
        let socket = try UnixListeningSocket(path: state.appendingPathComponent("\(name).sock").path)
        defer { socket.close() }
        let log = state.appendingPathComponent("functions.log").path
        return try (0..<children).map { _ in
            try SpawnedProcess.spawn(FunctionBinary.binDirectory.appendingPathComponent(name).path, arguments,
                                     environment: environment, directory: FunctionBinary.repositoryRoot.path,
                                     stdout: log, stderr: log, stdinDescriptor: socket.descriptor)
        }
    }

    /// (name, route) of every function.json with a route.
    static func routedFunctions() throws -> [(String, String)] {
        let folder = FunctionBinary.repositoryRoot.appendingPathComponent("functions")
        return try FunctionBinary.functionNames.compactMap { name in
            let data = try Data(contentsOf: folder.appendingPathComponent(name).appendingPathComponent("function.json"))
            guard let manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let route = manifest["route"] as? String else { return nil }
            return (name, route)
        }
    }

    private static func renderNginx(port: Int, state: URL) throws -> URL {
        let script = FunctionBinary.repositoryRoot.appendingPathComponent("infra/nginx/render-config.sh").path
        let config = state.appendingPathComponent("nginx.conf")
        let errors = state.appendingPathComponent("render.err")
        let renderer = try SpawnedProcess.spawn(
            "/bin/bash", [script, String(port), state.path], environment: ["PATH": "/usr/bin:/bin"],
            directory: FunctionBinary.repositoryRoot.path, stdout: config.path, stderr: errors.path)
        let (termination, timedOut) = renderer.waitOrKill(limit: 30)
        guard !timedOut, termination == .exited(0) else {
            let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw SpawnedProcess.Failure("infra/nginx/render-config.sh ended with \(termination): \(message)")
        }
        return config
    }

    /// Until our lighttpd holds the listening socket and accepts on it: a connection alone
    /// could reach someone else's server that took the port first (other test processes on
    /// the machine pick free ports too). 30 s bounds a server that never comes up, not how
    /// fast one starts.
    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let ended = process.poll() {
                let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
                throw SpawnedProcess.Failure("\(kind) ended (\(ended)) at start on port \(port): \(log)")
            }
            if process.listens(onPort: port), Self.accepts(port: port) { return }
            usleep(10_000)
        }
        process.killAndWait()
        throw SpawnedProcess.Failure("\(kind) did not listen on port \(port) within 30 s")
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    // MARK: HTTP

    /// One answer, its body parsed when it is a JSON object.
    struct Answer: CustomStringConvertible {
        var status: Int
        var body: [UInt8]
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
        /// `status` of a receive-notification answer ("accepted", "duplicate", "ignored").
        var receipt: String? { json["status"] as? String }
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
        var description: String { "\(status) \(text)" }
    }

    /// Apple's delivery: POST /appstore/notifications {"signedPayload": ...}. A client per call,
    /// so callers on many threads really run side by side (one client serialises its calls).
    func deliver(_ signedPayload: String) throws -> Answer {
        let body = try JSONSerialization.data(withJSONObject: ["signedPayload": signedPayload])
        return try send(HTTPRequest(method: "POST", url: baseURL + "/appstore/notifications",
                                    headers: [("Content-Type", "application/json")], body: Array(body)))
    }

    /// GET /entitlements?appAccountToken=..., with `bearer` as the Authorization token when given.
    func entitlements(appAccountToken: String, bearer: String?) throws -> Answer {
        var headers: [(String, String)] = []
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        return try send(HTTPRequest(method: "GET", url: baseURL + "/entitlements?appAccountToken=\(appAccountToken)",
                                    headers: headers))
    }

    func send(_ request: HTTPRequest) throws -> Answer {
        var request = request
        request.timeout = .seconds(60)
        let response = try CurlHTTPClient().send(request)
        return Answer(status: response.status, body: response.body)
    }
}
