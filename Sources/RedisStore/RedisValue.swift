/// One Redis reply, copied out of hiredis so no C memory outlives the call that made it.
enum RedisValue: Sendable, Equatable {
    /// A bulk string: binary-safe bytes.
    case string([UInt8])
    case integer(Int64)
    case array([RedisValue])
    /// A nil bulk string or nil array: the key or field is absent.
    case null
    /// A simple status line such as `OK`.
    case status(String)
    /// An error reply: the server's own text, starting with its error code (`ERR`, `NOSCRIPT`...).
    case error(String)

    /// The error code of an error reply. By the protocol's convention the first word of an
    /// error reply names its kind, so this is the reply's code, not a search of its prose.
    var errorCode: Substring? {
        guard case .error(let message) = self else { return nil }
        return message.prefix { $0 != " " && $0 != "\n" }
    }
}
