internal import CHiredis
import Glibc
import StorekeeperCore

/// Owns one redisContext: hiredis's blocking TCP connection to one Redis server (the
/// `redis://` link), with a timeout on connecting and on every command, so a hung server
/// becomes an error, never a hang. Frees the context (closing the socket) in `deinit`.
///
/// After any failure hiredis leaves the context unusable (`isBroken`).
final class RedisContext: RedisLink {
    private let context: UnsafeMutablePointer<redisContext>
    /// host:port for messages; never the credentials.
    private let address: String

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
    }

    deinit { redisFree(context) }

    /// True once hiredis has reported an I/O or protocol failure on this connection.
    var isBroken: Bool { shim_redisErr(context) != 0 }

    /// Sends every command in one write, then reads their replies in order: one round trip.
    func pipeline(_ commands: [[[UInt8]]]) throws(StoreError) -> [RedisValue] {
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

    // MARK: - Private

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

    private static func timeval(_ duration: Duration) -> Glibc.timeval {
        let (seconds, attoseconds) = duration.components
        return Glibc.timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
