import Glibc
import OpenSSLCrypto
import StorekeeperCore

/// One logged-in connection to one Redis server over either link (`RedisLink`): hiredis's
/// context for `redis://`, TLS for `rediss://`. Logs in and selects the database when it
/// opens; over TLS it always makes that first round trip (a PING when there is nothing to
/// send), so a server that refuses our client certificate, which TLS 1.3 reports only after
/// the handshake, is found when the store opens rather than at its first command.
///
/// Not thread-safe: `RedisStore` serialises every use behind its lock. After any failure the
/// link is unusable (`isBroken`); the store then opens a new one.
final class RedisConnection {
    private let link: any RedisLink
    /// host:port for messages; never the credentials.
    private let address: String

    /// The reply to the `probe` command sent with the login, when one was given.
    private(set) var probeReply: RedisValue?

    /// - Parameter probe: one more command sent in the login's round trip (the router's
    ///   `CLUSTER SLOTS`), whose reply, error or not, is `probeReply`.
    init(_ url: RedisURL, tls: TLSClientOptions, timeout: Duration, probe: [[UInt8]]? = nil) throws(StoreError) {
        address = url.host.contains(":") ? "[\(url.host)]:\(url.port)" : "\(url.host):\(url.port)"
        // The TLS handshake writes too, to a server that may hang up mid-way.
        link = try Self.withSIGPIPEBlocked { () throws(StoreError) -> any RedisLink in
            url.usesTLS ? try RedisTLSLink(url, options: tls, timeout: timeout) : try RedisContext(url, timeout: timeout)
        }
        // From here on a throw releases self, and the link closes its socket.
        probeReply = try logIn(url, probe: probe)
    }

    /// True once an I/O or protocol failure made this connection unusable.
    var isBroken: Bool { link.isBroken }

    /// Sends one command and returns its reply (an error reply is a value, not a throw).
    func command(_ arguments: [[UInt8]]) throws(StoreError) -> RedisValue {
        let replies = try pipeline([arguments])
        guard let reply = replies.first else {
            throw StoreError(.failed, "Redis at \(address): no reply was read")
        }
        return reply
    }

    /// Sends every command in one write, then reads their replies in order: one round trip.
    func pipeline(_ commands: [[[UInt8]]]) throws(StoreError) -> [RedisValue] {
        try Self.withSIGPIPEBlocked { () throws(StoreError) -> [RedisValue] in try link.pipeline(commands) }
    }

    // MARK: - Private

    private func logIn(_ url: RedisURL, probe: [[UInt8]]?) throws(StoreError) -> RedisValue? {
        var commands: [[[UInt8]]] = []
        if let password = url.password {
            if let username = url.username {
                commands.append([Array("AUTH".utf8), Array(username.utf8), Array(password.utf8)])
            } else {
                commands.append([Array("AUTH".utf8), Array(password.utf8)])
            }
        }
        if url.database != 0 {
            commands.append([Array("SELECT".utf8), Array(String(url.database).utf8)])
        }
        if let probe {
            commands.append(probe)
        } else if commands.isEmpty {
            guard url.usesTLS else { return nil }
            commands.append([Array("PING".utf8)])
        }
        var replies = try pipeline(commands)
        let probeReply = probe == nil ? nil : replies.popLast()
        for reply in replies {
            if case .error(let message) = reply {
                // A refused login or a missing database will not fix itself: exit 78, not 75.
                throw StoreError.fromServer(message, code: reply.errorCode ?? "", during: "Redis at \(address): log in",
                                            otherwise: .invalidConfiguration)
            }
        }
        return probeReply
    }

    /// hiredis (and OpenSSL's socket BIO) write with write(2), which raises SIGPIPE once the server has gone, and the
    /// default action would kill the function before it can answer 503. Blocking the signal on
    /// this thread for the call, and discarding one the call raised, turns it into EPIPE
    /// (libpq does the same) without touching the process-wide signal handling.
    private static func withSIGPIPEBlocked<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        var pipeOnly = sigset_t()
        sigemptyset(&pipeOnly)
        sigaddset(&pipeOnly, SIGPIPE)
        var previousMask = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeOnly, &previousMask)
        var pendingBefore = sigset_t()
        sigpending(&pendingBefore)
        let wasPending = sigismember(&pendingBefore, SIGPIPE) == 1
        defer {
            if !wasPending {
                var pendingAfter = sigset_t()
                sigpending(&pendingAfter)
                if sigismember(&pendingAfter, SIGPIPE) == 1 {
                    var noWait = timespec(tv_sec: 0, tv_nsec: 0)
                    _ = sigtimedwait(&pipeOnly, nil, &noWait)
                }
            }
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        }
        return try body()
    }
}
