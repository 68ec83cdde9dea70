import StorekeeperCore

/// One transport that carries commands to a Redis server and replies back, in order.
///
/// Two exist, because Debian's hiredis (0.14) has no TLS: `RedisContext`, hiredis's own
/// blocking context, for `redis://`; and `RedisTLSLink` for `rediss://`, which keeps
/// hiredis for what it does well (its command formatter and its RESP reply reader) and
/// moves the bytes over a `TLSClientConnection`, the TLS client the OpenSSL fence owns
/// (libssl's verification, SNI and host checks, not ours). So no RESP parser and no TLS
/// code is written here, each C library stays behind its own fence, and the plaintext path
/// is what it was.
protocol RedisLink: AnyObject {
    /// True once a failure left the link unusable; the store then opens a new one.
    var isBroken: Bool { get }

    /// Sends every command in one write, then reads their replies in order.
    func pipeline(_ commands: [[[UInt8]]]) throws(StoreError) -> [RedisValue]
}
