/// A Lua script run atomically by the server. Sent as EVALSHA (40 bytes instead of the whole
/// text); the first caller after a server restart or `SCRIPT FLUSH` gets NOSCRIPT and sends
/// the text once with EVAL, which also caches it for everyone else.
struct RedisScript: Sendable {
    /// For error messages.
    let name: String
    let source: String
    /// What Redis names the script: the SHA-1 of its text.
    let sha1: String

    init(name: String, source: String) {
        self.name = name
        self.source = source
        self.sha1 = SHA1.hexDigest(Array(source.utf8))
    }
}
