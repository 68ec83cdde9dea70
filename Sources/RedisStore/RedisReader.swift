internal import CHiredis
import StorekeeperCore

/// Owns one hiredis redisReader: the library's RESP parser, fed bytes from any transport
/// (here the TLS connection the OpenSSL fence owns) and asked for complete replies. Frees
/// it in `deinit`; replies it hands out are the caller's (`RedisReply`).
final class RedisReader {
    private let reader: UnsafeMutablePointer<redisReader>

    init() throws(StoreError) {
        guard let reader = redisReaderCreate() else {
            throw StoreError(.unavailable, "Redis: hiredis could not allocate a reply reader")
        }
        self.reader = reader
    }

    deinit { redisReaderFree(reader) }

    /// hiredis copies the bytes into its own buffer.
    func feed(_ bytes: [UInt8]) throws(StoreError) {
        let status = bytes.withUnsafeBytes { buffer in
            redisReaderFeed(reader, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), buffer.count)
        }
        guard status == REDIS_OK else { throw failure() }
    }

    /// The next complete reply, or nil when more bytes are needed.
    func next() throws(StoreError) -> RedisReply? {
        var reply: UnsafeMutablePointer<redisReply>?
        guard shim_redisReaderGetReply(reader, &reply) == REDIS_OK else { throw failure() }
        return reply.map { RedisReply(owning: $0) }
    }

    /// A garbled (non-RESP) answer: like hiredis's own REDIS_ERR_PROTOCOL, retryable, and the
    /// connection is dropped.
    private func failure() -> StoreError {
        let detail = String(cString: shim_redisReaderErrstr(reader))
        return StoreError(.unavailable, "Redis: the reply does not parse: \(detail.isEmpty ? "hiredis gave no detail" : detail)")
    }
}
