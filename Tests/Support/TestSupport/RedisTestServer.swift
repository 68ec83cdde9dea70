import Foundation
import Glibc

/// A real `redis-server` for one test (or suite): its own free port on loopback, its own
/// temporary directory, no snapshots and no AOF unless asked. Stopped and cleaned up when
/// released, so a failing test never leaves a server behind.
///
/// `stop`, `kill` and `restart` keep the port and directory, so a test can take the server
/// away mid-run and bring it back (with `--appendonly yes` among `arguments`, its data too).
public final class RedisTestServer: @unchecked Sendable {
    /// Why the suites are skipped, or nil when redis-server can run here. With `CI` set the
    /// suites are never skipped: `start()` then fails with this reason instead.
    public static let unavailableReason: String? = {
        executable == nil ? "redis-server is not installed (apt-get install redis-server, or set REDIS_SERVER to its path)" : nil
    }()

    /// Enable a suite when redis-server exists, or when CI is set (so a missing server fails).
    public static var shouldRun: Bool {
        unavailableReason == nil || ProcessInfo.processInfo.environment["CI"] != nil
    }

    public static let executable: String? = {
        // When set, exactly this one (and none when it is not there).
        if let path = ProcessInfo.processInfo.environment["REDIS_SERVER"] {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") + ["/usr/bin", "/usr/sbin", "/usr/local/bin"] {
            let candidate = "\(directory)/redis-server"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// The plaintext port (with `tls`, beside the TLS port: how the test waits for the
    /// server and what a TLS client to a plaintext port is tested against).
    public let port: Int
    /// The TLS port, when started with `tls`.
    public let tlsPort: Int?
    /// How the TLS port is set up, when it is.
    public let tls: TLS?
    public let directory: URL
    /// Passed after the defaults, so they can override them (`--appendonly yes`).
    public let arguments: [String]
    /// The password given with `--requirepass`, when any.
    public let password: String?

    private let lock = NSLock()
    /// The running server, nil while stopped.
    private var process: SpawnedProcess?

    /// `redis://127.0.0.1:<port>/<database>`, with the password when the server has one.
    public func url(database: Int = 0, includePassword: Bool = true) -> String {
        let credentials = includePassword ? password.map { ":\($0)@" } ?? "" : ""
        return "redis://\(credentials)127.0.0.1:\(port)/\(database)"
    }

    /// `rediss://<host>:<tlsPort>/<database>`; nil without a TLS port.
    public func tlsURL(host: String = "localhost", database: Int = 0) -> String? {
        guard let tlsPort else { return nil }
        let credentials = password.map { ":\($0)@" } ?? ""
        return "rediss://\(credentials)\(host):\(tlsPort)/\(database)"
    }

    /// A TLS port's set-up: the server's certificate and key, and the CA its clients'
    /// certificates must chain to (demanded only with `authenticatesClients`). Files from
    /// Tests/Fixtures/redis-tls (made by its make-redis-tls.sh).
    public struct TLS: Sendable {
        public var certificate: String
        public var authenticatesClients: Bool

        /// `certificate` names a pair in Tests/Fixtures/redis-tls: `server`, `server-elsewhere`, ...
        public init(certificate: String = "server", authenticatesClients: Bool = false) {
            self.certificate = certificate
            self.authenticatesClients = authenticatesClients
        }

        /// A file of Tests/Fixtures/redis-tls, e.g. `fixture("ca.pem")`.
        public static func fixture(_ name: String) -> String {
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Fixtures/redis-tls/\(name)").path
        }

        var arguments: [String] {
            ["--tls-cert-file", Self.fixture("\(certificate).pem"), "--tls-key-file", Self.fixture("\(certificate).key"),
             "--tls-ca-cert-file", Self.fixture("client-ca.pem"),
             "--tls-auth-clients", authenticatesClients ? "yes" : "no"]
        }
    }

    /// Like `freshDatabase`, on a shared server whose TLS port demands a client certificate
    /// (client.pem): `rediss://localhost:<port>/<n>`.
    public static func freshTLSDatabase() throws -> String {
        try sharedTLS.withLock { pool in
            if pool.next >= sharedDatabases || pool.servers.isEmpty {
                pool.servers.append(try start(arguments: ["--databases", String(sharedDatabases)],
                                              tls: TLS(authenticatesClients: true)))
                pool.next = 0
            }
            guard let server = pool.servers.last, let url = server.tlsURL(database: pool.next) else {
                throw Failure("no shared redis-server with TLS")
            }
            defer { pool.next += 1 }
            return url
        }
    }

    private static let sharedTLS = SharedPool()

    /// The locator of a new, empty database on a server shared by the whole test process:
    /// one server start for every conformance test instead of one each. A shared server
    /// holds `sharedDatabases` databases; when they run out another one is started. Shared
    /// servers live until the process exits.
    public static func freshDatabase() throws -> String {
        try shared.withLock { pool in
            if pool.next >= sharedDatabases || pool.servers.isEmpty {
                pool.servers.append(try start(arguments: ["--databases", String(sharedDatabases)]))
                pool.next = 0
            }
            guard let server = pool.servers.last else { throw Failure("no shared redis-server") }
            defer { pool.next += 1 }
            return server.url(database: pool.next)
        }
    }

    public static let sharedDatabases = 10_000
    private static let shared = SharedPool()

    final class SharedPool: @unchecked Sendable {
        private let lock = NSLock()
        var servers: [RedisTestServer] = []
        var next = 0

        init() {
            // Shared servers are never released: their processes are killed at exit (see
            // SpawnedProcess), and their folders are removed here.
            atexit {
                for server in RedisTestServer.shared.servers + RedisTestServer.sharedTLS.servers {
                    try? FileManager.default.removeItem(at: server.directory)
                }
            }
        }

        func withLock<Result>(_ body: (SharedPool) throws -> Result) throws -> Result {
            try lock.withLock { try body(self) }
        }
    }

    /// Starts a server and waits until it answers PING.
    public static func start(password: String? = nil, arguments: [String] = [], tls: TLS? = nil) throws -> RedisTestServer {
        guard executable != nil else {
            throw Failure(unavailableReason ?? "redis-server is not installed")
        }
        var lastError: any Error = Failure("no attempt made")
        // A free port can be taken by someone else between probing and binding: try again.
        for _ in 0..<5 {
            let server = try RedisTestServer(port: freePort(), tlsPort: tls == nil ? nil : freePort(), tls: tls,
                                             password: password, arguments: arguments)
            do {
                try server.launch()
                return server
            } catch {
                lastError = error
                server.kill()
            }
        }
        throw lastError
    }

    private init(port: Int, tlsPort: Int?, tls: TLS?, password: String?, arguments: [String]) throws {
        self.port = port
        self.tlsPort = tlsPort
        self.tls = tls
        self.password = password
        self.arguments = arguments
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("redis-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Graceful shutdown (SIGTERM), waiting for the process to exit.
    public func stop() {
        terminate(signal: SIGTERM)
    }

    /// A crash: SIGKILL, no chance to save anything.
    public func kill() {
        terminate(signal: SIGKILL)
    }

    /// Stops (or, with `crash`, kills) the server and starts it again on the same port and
    /// directory.
    public func restart(crash: Bool = false) throws {
        if crash { kill() } else { stop() }
        try launch()
    }

    /// Freezes the server (SIGSTOP): connections are still accepted by the kernel but nothing
    /// answers, which is what a hung server looks like to a client.
    public func pause() {
        lock.withLock { process }?.send(SIGSTOP)
    }

    public func resume() {
        lock.withLock { process }?.send(SIGCONT)
    }

    /// The server's log, for a failure message.
    public var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("redis.log"), encoding: .utf8)) ?? ""
    }

    // MARK: - Private

    /// A SpawnedProcess (posix_spawn), not Foundation's Process: see SpawnedProcess for why.
    private func launch() throws {
        guard let executable = Self.executable else { throw Failure("redis-server is not installed") }
        var all = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                   "--dir", directory.path, "--logfile", directory.appendingPathComponent("redis.log").path,
                   "--daemonize", "no"]
        if let password { all += ["--requirepass", password] }
        if let tls, let tlsPort { all += ["--tls-port", String(tlsPort)] + tls.arguments }
        all += arguments
        let child = try SpawnedProcess.spawn(executable, all)
        lock.withLock { process = child }
        try waitForPing(child)
    }

    private func terminate(signal: Int32) {
        let running: SpawnedProcess? = lock.withLock {
            let current = process
            process = nil
            return current
        }
        guard let running else { return }
        running.send(SIGCONT)
        running.send(signal)
        if running.wait(seconds: 10) == nil {
            running.killAndWait()
        }
    }

    /// Polls with a raw PING until the server answers (NOAUTH counts: it is up), for at most
    /// 30 s (a bound for a server that never comes up, not for how fast it starts). Only
    /// once our child holds the listening socket: before that a PONG may come from someone
    /// else's server that took the port first, while ours is still failing to bind.
    private func waitForPing(_ child: SpawnedProcess) throws {
        let deadline = Date().addingTimeInterval(30)
        var listened = false
        var lastAnswer: String? = nil
        var tries = 0
        while Date() < deadline {
            if let ended = child.poll() {
                lock.withLock { process = nil }
                throw Failure("redis-server ended (\(ended)) at start on port \(port):\n\(log)")
            }
            tries += 1
            listened = child.listens(onPort: port)
            if listened {
                lastAnswer = Self.rawCommand("PING\r\n", port: port)
                if let answer = lastAnswer, answer.hasPrefix("+PONG") || answer.hasPrefix("-NOAUTH") { return }
            }
            usleep(10_000)
        }
        throw Failure("redis-server did not answer PING on port \(port) within 30 s (\(tries) tries, listening seen: \(listened), last answer: \(lastAnswer ?? "none")):\n\(log)")
    }

    /// Sends raw RESP text and returns the first answer; nil when nothing answers.
    public static func rawCommand(_ text: String, port: Int) -> String? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        let bytes = Array(text.utf8)
        guard send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { return nil }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// Sends one raw RESP command whose answer is a bulk string (INFO, CLUSTER NODES,
    /// CLUSTER INFO) and returns that string whole, reading until its announced length has
    /// come; nil when nothing (or an error) answers.
    public static func bulkCommand(_ text: String, port: Int) -> String? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        let bytes = Array((text + "\r\n").utf8)
        guard send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { return nil }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while received.count < 1 << 22 {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            received += buffer[..<count]
            guard received.first == UInt8(ascii: "$") else { return nil }
            guard let lineEnd = received.firstIndex(of: UInt8(ascii: "\n")),
                  let length = Int(String(decoding: received[1..<max(1, lineEnd - 1)], as: UTF8.self)), length >= 0 else { continue }
            if received.count >= lineEnd + 1 + length {
                return String(decoding: received[(lineEnd + 1)..<(lineEnd + 1 + length)], as: UTF8.self)
            }
        }
        return nil
    }

    /// Sends raw RESP text and returns everything that came back until the server was quiet
    /// for `quiet` seconds (for an answer of any shape and size, such as CLUSTER SLOTS).
    public static func wholeAnswer(_ text: String, port: Int, quiet: Double = 0.05) -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return "" }
        let bytes = Array(text.utf8)
        guard send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { return "" }
        var limit = timeval(tv_sec: 0, tv_usec: Int(quiet * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while received.count < 1 << 22 {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// A port nobody listens on right now: bind port 0, read what the kernel chose, close.
    public static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure("socket() failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw Failure("bind() failed: errno \(errno)") }
        var chosen = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &chosen) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw Failure("getsockname() failed: errno \(errno)") }
        return Int(UInt16(bigEndian: chosen.sin_port))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        return address
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }
}
