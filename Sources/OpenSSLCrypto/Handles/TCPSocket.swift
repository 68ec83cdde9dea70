import Glibc

/// Owns one non-blocking TCP socket, connected within a deadline, and closes it in `deinit`.
/// The TLS connection above it waits for readiness here (`wait`), so every handshake, read
/// and write is bounded by its deadline instead of blocking in the kernel.
final class TCPSocket {
    let descriptor: Int32

    enum Readiness { case readable, writable }

    /// Resolves `host` and tries each address in turn until one connects.
    init(host: String, port: Int, deadline: ContinuousClock.Instant) throws(TLSError) {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw TLSError(.unavailable, "\(address): could not resolve the host: \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(first) }
        var lastFailure = "no address"
        var connected: Int32?
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while connected == nil, let current = entry {
            entry = current.pointee.ai_next
            do throws(TLSError) {
                connected = try Self.connect(current.pointee, deadline: deadline)
            } catch {
                lastFailure = error.message
            }
        }
        guard let connected else { throw TLSError(.unavailable, "\(address): connect: \(lastFailure)") }
        descriptor = connected
    }

    deinit { close(descriptor) }

    /// Waits until the socket is ready, or throws `.unavailable` once the deadline passes.
    func wait(for readiness: Readiness, until deadline: ContinuousClock.Instant, _ operation: String) throws(TLSError) {
        try Self.wait(descriptor, Int16(readiness == .readable ? POLLIN : POLLOUT), until: deadline, operation)
    }

    private static func wait(_ descriptor: Int32, _ events: Int16, until deadline: ContinuousClock.Instant,
                             _ operation: String) throws(TLSError) {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw TLSError(.unavailable, "\(operation): timed out") }
            let (seconds, attoseconds) = left.components
            // Rounded up, so a wait never ends a moment before the deadline and spins.
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR {
                throw TLSError(.unavailable, "\(operation): poll: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// One address: a non-blocking socket, connect(2), then wait for it to be writable and
    /// read the outcome from SO_ERROR.
    private static func connect(_ address: addrinfo, deadline: ContinuousClock.Instant) throws(TLSError) -> Int32 {
        let descriptor = socket(address.ai_family, address.ai_socktype | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue),
                                address.ai_protocol)
        guard descriptor >= 0 else { throw TLSError(.unavailable, "socket: \(String(cString: strerror(errno)))") }
        do throws(TLSError) {
            if Glibc.connect(descriptor, address.ai_addr, address.ai_addrlen) != 0 {
                guard errno == EINPROGRESS else { throw TLSError(.unavailable, String(cString: strerror(errno))) }
                try waitForConnection(descriptor, deadline: deadline)
            }
            // Commands are small and answered one by one: no Nagle delay (hiredis sets it too).
            var on: Int32 = 1
            setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            return descriptor
        } catch {
            close(descriptor)
            throw error
        }
    }

    private static func waitForConnection(_ descriptor: Int32, deadline: ContinuousClock.Instant) throws(TLSError) {
        try wait(descriptor, Int16(POLLOUT), until: deadline, "connect")
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
        guard failure == 0 else { throw TLSError(.unavailable, String(cString: strerror(failure))) }
    }
}
