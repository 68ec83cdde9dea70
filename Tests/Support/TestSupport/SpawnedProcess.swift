import Foundation
import Glibc

/// A child process for tests that must outlive a call, be killed at a chosen moment, or be a
/// server (redis-server, lighttpd): started with posix_spawn, never with Foundation's Process.
///
/// - Process hands the child the spawning thread's signal mask, and on a dispatch worker
///   thread that mask blocks SIGTERM, so the child would never stop. Here the child starts
///   with nothing blocked and the usual signals at their defaults.
/// - The child gets exactly stdin, stdout and stderr (files, or /dev/null) and no other
///   descriptor: a long-lived child holding another child's pipe, or Foundation's exit-watch
///   socket, would keep that child's reader (or waitUntilExit) waiting for ever.
/// - Every child is reaped with waitpid, and any still running when the test process exits is
///   killed, so a failing test never leaves one behind.
public final class SpawnedProcess: @unchecked Sendable {
    /// How a child ended.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    public let processIdentifier: pid_t
    public let executable: String

    private let lock = NSLock()
    private var ended: Termination?

    private init(processIdentifier: pid_t, executable: String) {
        self.processIdentifier = processIdentifier
        self.executable = executable
    }

    /// Starts `executable` with `arguments`. `environment` nil passes this process's own;
    /// `directory` nil keeps this process's working directory. `stdout` and `stderr` are
    /// appended to (created when missing); the same path may be given for both.
    /// `stdinDescriptor`, when given, is the child's stdin instead of the `stdin` file.
    public static func spawn(_ executable: String, _ arguments: [String] = [],
                             environment: [String: String]? = nil, directory: String? = nil,
                             stdin: String = "/dev/null", stdout: String = "/dev/null",
                             stderr: String = "/dev/null", stdinDescriptor: Int32? = nil) throws -> SpawnedProcess {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var nothing = sigset_t()
        sigemptyset(&nothing)
        posix_spawnattr_setsigmask(&attributes, &nothing)
        var reset = sigset_t()
        sigemptyset(&reset)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&reset, signal) }
        posix_spawnattr_setsigdefault(&attributes, &reset)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var files = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&files)
        defer { posix_spawn_file_actions_destroy(&files) }
        if let stdinDescriptor {
            // A descriptor of this process (a listening socket, as spawn-fcgi hands it over).
            posix_spawn_file_actions_adddup2(&files, stdinDescriptor, 0)
        } else {
            posix_spawn_file_actions_addopen(&files, 0, stdin, O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&files, 1, stdout, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&files, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if let directory {
            guard addChangeDirectory(&files, directory) else {
                throw Failure("posix_spawn_file_actions_addchdir_np is not available: cannot start \(executable) in \(directory)")
            }
        }
        closeEverythingFrom3(&files)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var child: pid_t = 0
        let status: Int32
        if let environment {
            let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for entry in envp { free(entry) } }
            status = posix_spawn(&child, executable, &files, &attributes, argv, envp)
        } else {
            status = posix_spawn(&child, executable, &files, &attributes, argv, environ)
        }
        guard status == 0 else { throw Failure("posix_spawn \(executable) failed: errno \(status)") }
        live.insert(child)
        return SpawnedProcess(processIdentifier: child, executable: executable)
    }

    /// Sends `signal` unless the child has already been reaped (its pid may be reused then).
    public func send(_ signal: Int32) {
        lock.withLock {
            if ended == nil { _ = Glibc.kill(processIdentifier, signal) }
        }
    }

    /// How it ended, without waiting; nil while it runs.
    public func poll() -> Termination? {
        lock.withLock {
            if let ended { return ended }
            var status: Int32 = 0
            let result = waitpid(processIdentifier, &status, WNOHANG)
            if result == processIdentifier {
                ended = Self.decode(status)
            } else if result == -1 && errno == ECHILD {
                ended = .exited(-1) // reaped elsewhere: gone, status unknown
            }
            if ended != nil { Self.live.remove(processIdentifier) }
            return ended
        }
    }

    /// Waits up to `seconds` for the child to end; nil when it still runs.
    public func wait(seconds: Double) -> Termination? {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if let ended = poll() { return ended }
            usleep(2_000)
        } while Date() < deadline
        return poll()
    }

    /// Whether this process itself holds a TCP socket listening on `port` (IPv4), read from
    /// /proc. Unlike "something accepts on the port", this cannot be fooled by another
    /// program's server that took the port between probing it free and our child binding it
    /// (other test processes on the machine pick free ports too).
    public func listens(onPort port: Int) -> Bool {
        guard poll() == nil else { return false }
        let table = Self.wholeProcFile("/proc/net/tcp")
        let portHex = String(format: ":%04X", port)
        var inodes: Set<String> = []
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl, local_address, rem_address, st (0A is LISTEN), ..., inode (the tenth field).
            guard fields.count > 9, fields[1].hasSuffix(portHex), fields[3] == "0A" else { continue }
            inodes.insert(String(fields[9]))
        }
        guard !inodes.isEmpty else { return false }
        let folder = "/proc/\(processIdentifier)/fd"
        for descriptor in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(descriptor)"),
                  target.hasPrefix("socket:[") else { continue }
            if inodes.contains(String(target.dropFirst("socket:[".count).dropLast())) { return true }
        }
        return false
    }

    /// A /proc file read to its end. Foundation's `String(contentsOfFile:)` trusts the size
    /// `stat` reports, which is 0 for these files, and returns what one read gave: the first
    /// page of /proc/net/tcp. With a few dozen sockets open a server's listening line came
    /// later, so a server that was up was never seen listening (a 30 s wait, then a failure).
    static func wholeProcFile(_ path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            contents += buffer[..<count]
        }
        return String(decoding: contents, as: UTF8.self)
    }

    /// SIGKILL, then reaps it: when this returns the process is gone.
    @discardableResult
    public func killAndWait() -> Termination {
        send(SIGCONT)
        send(SIGKILL)
        while true {
            if let ended = wait(seconds: 10) { return ended }
            send(SIGKILL)
        }
    }

    /// Runs to the end or for at most `limit` seconds (then SIGKILL, and the answer says so).
    public func waitOrKill(limit: Double) -> (termination: Termination, timedOut: Bool) {
        if let ended = wait(seconds: limit) { return (ended, false) }
        return (killAndWait(), true)
    }

    /// For a server that writes its port to `portFile` once it listens (written whole, then
    /// renamed): that port, within 20 s. A server that exits or never writes it is killed, and
    /// the failure names it (`name`) with its stderr (`stderrFile`).
    public func awaitPort(in portFile: String, stderrFile: String, name: String) throws -> Int {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text) { return port }
            if poll() != nil { break }
            usleep(20_000)
        }
        killAndWait()
        let log = (try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? ""
        throw Failure("\(name) did not start: \(log)")
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    // MARK: - Private

    private static func decode(_ status: Int32) -> Termination {
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
    }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34+) closes every other descriptor
    /// in the child, atomically; Swift's Glibc module does not export it, so it is looked
    /// up. Without it, the descriptors open now are closed one by one.
    private static func closeEverythingFrom3(_ files: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
            if closeFrom(&files, 3) == 0 { return }
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&files, descriptor)
        }
    }

    /// glibc 2.29+; not exported by Swift's Glibc module either.
    private static func addChangeDirectory(_ files: inout posix_spawn_file_actions_t, _ directory: String) -> Bool {
        typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else {
            return false
        }
        let addChdir = unsafeBitCast(symbol, to: AddChdir.self)
        return directory.withCString { addChdir(&files, $0) } == 0
    }

    /// Every child started and not yet reaped; at exit, all are killed.
    private static let live = LiveChildren()

    final class LiveChildren: @unchecked Sendable {
        private let lock = NSLock()
        private var children: Set<pid_t> = []

        init() {
            atexit {
                for child in SpawnedProcess.live.snapshot() { _ = Glibc.kill(child, SIGKILL) }
            }
        }

        func insert(_ child: pid_t) { lock.withLock { _ = children.insert(child) } }
        func remove(_ child: pid_t) { lock.withLock { _ = children.remove(child) } }
        func snapshot() -> Set<pid_t> { lock.withLock { children } }
    }
}
