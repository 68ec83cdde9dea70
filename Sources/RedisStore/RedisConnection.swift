internal import CHiredis
import Glibc
import StorekeeperCore

/// Owns one redisContext: a blocking TCP connection to one Redis server with a timeout on
/// connecting and on every command, so a hung server becomes an error, never a hang.
/// Frees the context (closing the socket) in `deinit`.
///
/// Not thread-safe: `RedisStore` serialises every use behind its lock. After any failure
/// hiredis leaves the context unusable (`isBroken`); the store then opens a new one.
final class RedisConnection {
    private let context: UnsafeMutablePointer<redisContext>
    /// host:port for messages; never the credentials.
    private let address: String

    /// Connects, then logs in and selects the database in one round trip.
    init(_ url: RedisURL, timeout: Duration) throws(StoreError) {
        let address = url.host.contains(":") ? "[\(url.host)]:\(url.port)" : "\(url.host):\(url.port)"
        let limit = Self.timeval(timeout)
        guard let context = redisConnectWithTimeout(url.host, Int32(url.port), limit) else {
            throw StoreError(.unavailable, "Redis at \(address): connect: hiredis could not allocate a context")
        }
        // Until `self.context` is set this initialiser owns the context, so a failure frees it here.
        do {
            try Self.check(shim_redisErr(context) == 0, context, address, "connect")
            // The connect timeout covers the handshake only; this one covers every later read and write.
            try Self.check(redisSetTimeout(context, limit) == REDIS_OK, context, address, "set the command timeout")
        } catch {
            redisFree(context)
            throw error
        }
        self.context = context
        self.address = address
        // From here on a throw releases self, and deinit frees the context.
        try logIn(url)
    }

    deinit { redisFree(context) }

    /// True once hiredis has reported an I/O or protocol failure on this connection.
    var isBroken: Bool { shim_redisErr(context) != 0 }

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
        try withSIGPIPEBlocked { () throws(StoreError) -> [RedisValue] in
            for arguments in commands {
                try append(arguments)
            }
            var values: [RedisValue] = []
            values.reserveCapacity(commands.count)
            for _ in commands {
                let reply = try Self.check(shim_redisGetReply(context), context, address, "read a reply")
                values.append(reply.value)
            }
            return values
        }
    }

    // MARK: - Private

    private func logIn(_ url: RedisURL) throws(StoreError) {
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
        guard !commands.isEmpty else { return }
        for reply in try pipeline(commands) {
            if case .error(let message) = reply {
                // A refused login or a missing database will not fix itself: exit 78, not 75.
                throw StoreError.fromServer(message, code: reply.errorCode ?? "", during: "Redis at \(address): log in",
                                            otherwise: .invalidConfiguration)
            }
        }
    }

    /// hiredis copies the arguments into its output buffer, so the pointers need only live
    /// for this call.
    private func append(_ arguments: [[UInt8]]) throws(StoreError) {
        var joined: [UInt8] = []
        joined.reserveCapacity(arguments.reduce(0) { $0 + $1.count })
        var offsets: [Int] = []
        var lengths: [Int] = []
        offsets.reserveCapacity(arguments.count)
        lengths.reserveCapacity(arguments.count)
        for argument in arguments {
            offsets.append(joined.count)
            lengths.append(argument.count)
            joined.append(contentsOf: argument)
        }
        let status = joined.withUnsafeBytes { buffer -> Int32 in
            var argv: [UnsafePointer<CChar>?] = offsets.map { offset in
                buffer.baseAddress.map { ($0 + offset).assumingMemoryBound(to: CChar.self) }
            }
            return redisAppendCommandArgv(context, Int32(arguments.count), &argv, lengths)
        }
        try Self.check(status == REDIS_OK, context, address, "queue a command")
    }

    /// The one place a hiredis failure becomes an error: the library's own `errstr` for the
    /// log, and a kind that does not depend on that text.
    private static func check(_ succeeded: Bool, _ context: UnsafeMutablePointer<redisContext>,
                              _ address: String, _ operation: String) throws(StoreError) {
        guard !succeeded else { return }
        let detail = String(cString: shim_redisErrstr(context))
        let message = "Redis at \(address): \(operation): \(detail.isEmpty ? "hiredis gave no detail" : detail)"
        // Every hiredis error kind leaves this connection unusable, and the next call connects
        // afresh: PROTOCOL (a garbled or non-RESP answer), OOM (this process could not allocate
        // a reply), IO, EOF (connection lost), timeouts (EAGAIN), refused connections and name
        // resolution. None is the caller's fault and the server may be fine in a moment, so
        // each is retryable; the message (hiredis' errstr) says which it was.
        throw StoreError(.unavailable, message)
    }

    /// A NULL reply means the context failed; otherwise the caller now owns the reply.
    private static func check(_ reply: UnsafeMutablePointer<redisReply>?, _ context: UnsafeMutablePointer<redisContext>,
                              _ address: String, _ operation: String) throws(StoreError) -> RedisReply {
        guard let reply else {
            try check(false, context, address, operation)
            throw StoreError(.unavailable, "Redis at \(address): \(operation): no reply")
        }
        return RedisReply(owning: reply)
    }

    /// hiredis writes with write(2), which raises SIGPIPE once the server has gone, and the
    /// default action would kill the function before it can answer 503. Blocking the signal on
    /// this thread for the call, and discarding one the call raised, turns it into EPIPE
    /// (libpq does the same) without touching the process-wide signal handling.
    private func withSIGPIPEBlocked<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
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

    private static func timeval(_ duration: Duration) -> Glibc.timeval {
        let (seconds, attoseconds) = duration.components
        return Glibc.timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
