/// A Lua script run atomically by the server. Sent as EVALSHA (40 bytes instead of the whole
/// text); the first caller after a server restart or `SCRIPT FLUSH` gets NOSCRIPT and sends
/// the text once with EVAL, which also caches it for everyone else.
struct RedisScript: Sendable {
    /// For error messages.
    let name: String
    let source: String
    /// What Redis names the script: the SHA-1 of its text.
    let sha1: String
    /// False for scripts that only read: on a cluster a write waits for a replica.
    let writes: Bool

    init(name: String, source: String, writes: Bool = true) {
        self.name = name
        self.source = source
        self.writes = writes
        self.sha1 = SHA1.hexDigest(Array(source.utf8))
    }
}
