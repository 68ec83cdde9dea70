#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The FastCGI convention's listening socket: handed over as file descriptor 0 (spawn-fcgi,
/// lighttpd's `bin-path`, systemd's `StandardInput=socket`), or opened here for
/// `--fastcgi ADDRESS`. Opened with plain POSIX calls rather than FCGX_OpenSocket, which
/// exits the process on a bind failure instead of reporting it.
public enum ListeningSocket {
    /// Whether `descriptor` is a socket in the listening state (SO_ACCEPTCONN): what tells a
    /// FastCGI child from a CGI process or a pipe, whose stdin is a pipe, a file or a terminal.
    public static func isListening(_ descriptor: Int32) -> Bool {
        var accepting: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) == 0 && accepting != 0
    }

    /// Opens and listens on `address`: `host:port` (`[::1]:9000`; `:9000` is 127.0.0.1, never
    /// every interface by accident) or a Unix socket path (anything with a `/`). A socket file
    /// left at the path by an earlier run is replaced; any other file there is an error.
    public static func open(_ address: String, backlog: Int32 = 1024) throws(FastCGIError) -> Int32 {
        if address.contains("/") { return try openUnix(path: address, backlog: backlog) }
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]), port > 0 else {
            throw FastCGIError("listen on \(address)", "not host:port nor a path with a /")
        }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return try openTCP(host: host.isEmpty ? "127.0.0.1" : host, port: port, backlog: backlog)
    }

    private static func openTCP(host: String, port: UInt16, backlog: Int32) throws(FastCGIError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let first = found else {
            throw FastCGIError("listen on \(host):\(port)", String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(found) }
        let descriptor = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw FastCGIError("socket", "failed", errorNumber: errno) }
        var yes: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0, listen(descriptor, backlog) == 0 else {
            let failure = errno
            close(descriptor)
            throw FastCGIError("listen on \(host):\(port)", String(cString: strerror(failure)), errorNumber: failure)
        }
        return descriptor
    }

    private static func openUnix(path: String, backlog: Int32) throws(FastCGIError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw FastCGIError("listen on \(path)", "the path is too long for a Unix socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                throw FastCGIError("listen on \(path)", "a file that is not a socket is in the way")
            }
            unlink(path)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw FastCGIError("socket", "failed", errorNumber: errno) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(descriptor, backlog) == 0 else {
            let failure = errno
            close(descriptor)
            throw FastCGIError("listen on \(path)", String(cString: strerror(failure)), errorNumber: failure)
        }
        return descriptor
    }
}
