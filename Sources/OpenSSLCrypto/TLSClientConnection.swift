internal import COpenSSL
import Glibc

/// A TLS client connection over TCP, owned by the OpenSSL fence: TLS 1.2 or later, the
/// server's certificate verified against `TLSClientOptions.caFile` (or the system's CAs)
/// and against the host it was reached by, an optional client certificate, and every
/// step bounded by `timeout`.
///
/// The host check follows RFC 6125 as OpenSSL implements it: a DNS name must match one of
/// the certificate's DNS names (`SSL_set1_host`, partial wildcards refused) and is sent as
/// SNI; an IP address (`127.0.0.1`, `::1`) must match one of its IP addresses
/// (`X509_VERIFY_PARAM_set1_ip_asc`) and is not sent as SNI (RFC 6066 §3 forbids it).
///
/// The socket is non-blocking and every OpenSSL call that wants to read or write waits in
/// poll(2) until its deadline, so a peer that stops answering (or never speaks TLS) is an
/// `.unavailable` error after `timeout`, never a hang. Not thread-safe: one caller at a
/// time. Frees the SSL object and closes the socket in `deinit`.
public final class TLSClientConnection {
    let ssl: OpaquePointer
    let socket: TCPSocket
    private let timeout: Duration
    /// host:port for messages.
    let address: String
    /// True once a read or write failed: the connection is not to be used again.
    public internal(set) var isBroken = false

    /// Connects, then completes the handshake, all within `timeout` (each).
    public init(host: String, port: Int, options: TLSClientOptions, timeout: Duration) throws(TLSError) {
        address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        self.timeout = timeout
        let context = try SSLContext(options)
        socket = try TCPSocket(host: host, port: port, deadline: .now + timeout)
        // SSL_new up-refs the context: it lives as long as the SSL object, not `context`.
        guard let ssl = SSL_new(context.pointer) else {
            throw TLSError(.configuration, "TLS: SSL_new: \(CryptoError.fromErrorQueue(operation: "SSL_new").message)")
        }
        self.ssl = ssl
        // From here on a throw releases self, and deinit frees the SSL object.
        try expect(host)
        guard SSL_set_fd(ssl, socket.descriptor) == 1 else { throw queueFailure("SSL_set_fd") }
        shim_SSL_set_partial_write_modes(ssl)
        try handshake()
    }

    /// No close_notify: Redis needs none, and a write here could meet a server that has gone
    /// (SIGPIPE) outside the calls whose caller guards against it.
    deinit { SSL_free(ssl) }

    /// The negotiated protocol, e.g. "TLSv1.3".
    public var protocolVersion: String { String(cString: SSL_get_version(ssl)) }

    /// Writes all of `bytes` within the timeout.
    public func write(_ bytes: [UInt8]) throws(TLSError) {
        let deadline = ContinuousClock.now + timeout
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                freshErrorQueue { SSL_write(ssl, buffer.baseAddress.map { $0 + written }, Int32(clamping: bytes.count - written)) }
            }
            if result > 0 {
                written += Int(result)
                continue
            }
            do throws(TLSError) {
                try retry(result, "write", until: deadline, handshake: false)
            } catch {
                throw refusalBefore(error)
            }
        }
    }

    /// Reads what arrives first (at most `maximum` bytes), waiting up to the timeout for it.
    public func read(maximum: Int = 16_384) throws(TLSError) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let result = buffer.withUnsafeMutableBytes { bytes in
                freshErrorQueue { SSL_read(ssl, bytes.baseAddress, Int32(clamping: maximum)) }
            }
            if result > 0 { return Array(buffer[..<Int(result)]) }
            try retry(result, "read", until: deadline, handshake: false)
        }
    }

    // MARK: - Private

    /// What the server's certificate must name: the host as a DNS name or an IP address.
    private func expect(_ host: String) throws(TLSError) {
        if Self.isIPAddress(host) {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else {
                throw queueFailure("X509_VERIFY_PARAM_set1_ip_asc")
            }
            return
        }
        SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
        guard SSL_set1_host(ssl, host) == 1 else { throw queueFailure("SSL_set1_host") }
        guard shim_SSL_set_tlsext_host_name(ssl, host) == 1 else { throw queueFailure("SSL_set_tlsext_host_name") }
    }

    private func handshake() throws(TLSError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            let result = freshErrorQueue { SSL_connect(ssl) }
            if result == 1 { break }
            try retry(result, "handshake", until: deadline, handshake: true)
        }
        // SSL_VERIFY_PEER already fails the handshake on a bad certificate; this makes the
        // promise explicit should the mode ever change.
        let verdict = SSL_get_verify_result(ssl)
        guard verdict == X509_V_OK else { throw certificateRejected(verdict) }
    }

    /// Runs one SSL_* I/O call on an empty error queue. SSL_get_error reads the thread's
    /// queue before the call's own result: an error some other code left there (libcurl, in
    /// a process where it shares our libssl, leaves "shutdown while in init" after a failed
    /// handshake) would turn an ordinary "wait for the server" into a protocol failure.
    func freshErrorQueue(_ call: () -> Int32) -> Int32 {
        ERR_clear_error()
        return call()
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }
}
