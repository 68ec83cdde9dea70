internal import CFastCGI
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Accepts FastCGI requests on a listening socket, one at a time, until the process is told
/// to stop (SIGTERM, SIGINT, or SIGUSR1 as libfcgi's own convention has it).
///
/// Stopping is race-free and never cuts a request short: the stop signals are blocked in this
/// process and read from a signalfd, which is polled together with the socket while no request
/// is open. A signal that arrives during a request waits, pending, until the answer is written
/// and the request finished; the next `next()` then returns nil. The listening socket is made
/// non-blocking, so when several children share it (`spawn-fcgi -F N`) and one takes the
/// connection the others wake to EAGAIN and poll again instead of blocking in accept(2), where
/// they could not see a signal. Accepted connections stay blocking (Linux does not pass
/// O_NONBLOCK on to accept(2)'s socket).
public final class FastCGIListener {
    public let socket: Int32
    private let library: LibFCGI
    private let signals: Int32
    private let request: UnsafeMutablePointer<FCGX_Request>
    /// Counts accepted requests; an exchange is usable only while its number is current.
    private(set) var generation = 0
    private var isOpen = false
    /// The signal that ended `next()`, once one has.
    public private(set) var stopSignal: Int32?

    /// Serves on `socket`, which must be listening (`ListeningSocket.isListening`). Loads libfcgi.
    public init(socket: Int32) throws(FastCGIError) {
        library = try LibFCGI.shared()
        let flags = fcntl(socket, F_GETFL)
        guard flags >= 0, fcntl(socket, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw FastCGIError("make the listening socket non-blocking", "fcntl failed", errorNumber: errno)
        }
        var stopping = sigset_t()
        sigemptyset(&stopping)
        for signal in [SIGTERM, SIGINT, SIGUSR1] { sigaddset(&stopping, signal) }
        guard pthread_sigmask(SIG_BLOCK, &stopping, nil) == 0 else {
            throw FastCGIError("block the stop signals", "pthread_sigmask failed", errorNumber: errno)
        }
        let signals = signalfd(-1, &stopping, Int32(SFD_CLOEXEC))
        guard signals >= 0 else { throw FastCGIError("signalfd", "failed", errorNumber: errno) }
        request = .allocate(capacity: 1)
        let status = library.api.pointee.init_request(request, socket, 0)
        guard status == 0 else {
            close(signals)
            request.deallocate()
            throw FastCGIError("FCGX_InitRequest", "failed", errorNumber: status)
        }
        self.socket = socket
        self.signals = signals
    }

    deinit {
        finish()
        library.api.pointee.free_request(request, 1)
        close(signals)
        request.deallocate()
    }

    /// The next request, once one has arrived and its parameters are read; nil when a stop
    /// signal came first. Finishes the previous request if it is still open.
    public func next() throws(FastCGIError) -> FastCGIExchange? {
        finish()
        while true {
            // A connection the web server keeps open (FCGI_KEEP_CONN) carries the next request.
            let connection = request.pointee.ipcFd
            var ready = [pollfd(fd: connection >= 0 ? connection : socket, events: Int16(POLLIN), revents: 0),
                         pollfd(fd: signals, events: Int16(POLLIN), revents: 0)]
            guard poll(&ready, 2, -1) >= 0 else {
                if errno == EINTR { continue }
                throw FastCGIError("poll", "failed", errorNumber: errno)
            }
            if ready[1].revents != 0 {
                var received = signalfd_siginfo()
                _ = withUnsafeMutableBytes(of: &received) { Glibc.read(signals, $0.baseAddress, $0.count) }
                stopSignal = Int32(bitPattern: received.ssi_signo)
                return nil
            }
            guard ready[0].revents != 0 else { continue }
            let status = library.api.pointee.accept_r(request)
            if status == 0 {
                generation += 1
                isOpen = true
                return FastCGIExchange(listener: self, generation: generation, parameters: parameters())
            }
            // Another child took the connection, or the client gave up before it was accepted.
            if [EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED].contains(-status) { continue }
            throw FastCGIError("FCGX_Accept_r", "accepting a request failed", errorNumber: -status)
        }
    }

    /// Flushes the answer, ends the request (FCGI_END_REQUEST) and closes or keeps its
    /// connection, as the web server asked. Safe to call twice.
    public func finish() {
        guard isOpen else { return }
        isOpen = false
        library.api.pointee.finish_r(request)
    }

    /// The request's parameters (FCGI_PARAMS: the CGI variables and the HTTP_* headers), from
    /// its own envp, never the process environment.
    private func parameters() -> [String: String] {
        var result: [String: String] = [:]
        guard var entry = request.pointee.envp else { return result }
        while let pair = entry.pointee {
            let text = String(cString: pair)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }

    // MARK: The open request's streams, for FastCGIExchange

    func read(into buffer: UnsafeMutableRawBufferPointer, generation: Int) throws(FastCGIError) -> Int {
        try checkCurrent(generation)
        let stream = request.pointee.in
        let count = library.api.pointee.get_str(buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), stream)
        let error = library.api.pointee.get_error(stream)
        if count < buffer.count, error != 0 {
            throw FastCGIError("read the request body", "the connection failed", errorNumber: error)
        }
        return Int(count)
    }

    func write(_ buffer: UnsafeRawBufferPointer, generation: Int) throws(FastCGIError) {
        try checkCurrent(generation)
        guard buffer.count > 0 else { return }
        let written = library.api.pointee.put_str(buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count),
                                                  request.pointee.out)
        guard written == buffer.count else {
            throw FastCGIError("write the answer", "the connection failed", errorNumber: library.api.pointee.get_error(request.pointee.out))
        }
    }

    private func checkCurrent(_ generation: Int) throws(FastCGIError) {
        guard isOpen, generation == self.generation else {
            throw FastCGIError("use a request", "the request is already finished")
        }
    }
}
