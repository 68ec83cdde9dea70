import StorekeeperCore

/// Where a Redis server is and how to log in: `redis://[[user]:password@]host[:port][/db]`,
/// or `rediss://` with the same forms for TLS (see `RedisTLSLink`).
///
/// Parsed strictly: anything this adapter would have to guess about (a query string, a user
/// without a password, an unbracketed IPv6 address) is a configuration error, and no message
/// ever repeats the credentials.
struct RedisURL: Sendable, Equatable {
    var host: String
    var port: Int
    /// Sent as `AUTH username password` (Redis 6 ACL users) when set.
    var username: String?
    /// Sent as `AUTH password` (or with the username) when set.
    var password: String?
    /// Chosen with `SELECT` when not 0.
    var database: Int
    /// `rediss://`: TLS 1.2 or later, the server's certificate and name verified.
    var usesTLS: Bool

    static let defaultPort = 6379

    init(host: String, port: Int = Self.defaultPort, username: String? = nil, password: String? = nil, database: Int = 0,
         usesTLS: Bool = false) {
        self.usesTLS = usesTLS
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    init(parsing text: String) throws(StoreError) {
        var rest: Substring
        (usesTLS, rest) = try Self.afterScheme(text)
        // The last '@' ends the credentials, so a password holding '@' or '/' still parses.
        (username, password) = (nil, nil)
        if let at = rest.lastIndex(of: "@") {
            (username, password) = try Self.credentials(rest[..<at])
            rest = rest[rest.index(after: at)...]
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        database = try Self.database(rest[slash...].dropFirst())
        let (hostPart, portPart) = try Self.hostAndPort(rest[..<slash])
        host = String(hostPart)
        port = try portPart.map { (portPart) throws(StoreError) in try Self.port(portPart) } ?? Self.defaultPort
    }

    /// Whether the scheme is `rediss://`, and what follows it; any other scheme, a query or
    /// a fragment is refused.
    private static func afterScheme(_ text: String) throws(StoreError) -> (usesTLS: Bool, rest: Substring) {
        guard let schemeEnd = text.firstRange(of: "://") else {
            throw invalid("expected redis://[[user]:password@]host[:port][/db] or rediss://...")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "redis" || scheme == "rediss" else {
            throw invalid("the scheme must be redis:// or rediss:// (TLS)")
        }
        let rest = text[schemeEnd.upperBound...]
        guard !rest.contains("?"), !rest.contains("#") else {
            throw invalid("query strings and fragments are not supported: redis://[[user]:password@]host[:port][/db]")
        }
        return (scheme == "rediss", rest)
    }

    /// `user:password` or `:password`; a user without a password is refused.
    private static func credentials(_ userInfo: Substring) throws(StoreError) -> (username: String?, password: String) {
        guard let colon = userInfo.firstIndex(of: ":") else {
            throw invalid("a user needs a password: redis://user:password@host or redis://:password@host")
        }
        let user = try percentDecoded(userInfo[..<colon], "user name")
        let secret = try percentDecoded(userInfo[userInfo.index(after: colon)...], "password")
        guard !secret.isEmpty else { throw invalid("the password is empty") }
        return (user.isEmpty ? nil : user, secret)
    }

    private static func database(_ path: Substring) throws(StoreError) -> Int {
        if path.isEmpty { return 0 }
        guard path.allSatisfy(\.isASCII), path.allSatisfy(\.isNumber), path.count <= 5, let number = Int(path) else {
            throw invalid("the database must be a number: redis://host:port/0")
        }
        return number
    }

    /// `host`, `host:port`, `[::1]` or `[::1]:port`.
    private static func hostAndPort(_ authority: Substring) throws(StoreError) -> (host: Substring, port: Substring?) {
        if authority.hasPrefix("[") {
            // An IPv6 literal: [::1] or [::1]:6380.
            guard let close = authority.firstIndex(of: "]") else { throw invalid("an IPv6 address needs its closing ']'") }
            let hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw invalid("expected :port after the IPv6 address") }
            guard !hostPart.isEmpty, hostPart.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw invalid("the IPv6 address is malformed")
            }
            return (hostPart, after.isEmpty ? nil : after.dropFirst())
        }
        let colons = authority.filter { $0 == ":" }.count
        guard colons <= 1 else { throw invalid("an IPv6 address must be in brackets: redis://[::1]:6379") }
        let hostPart = authority.firstIndex(of: ":").map { authority[..<$0] } ?? authority
        let portPart = authority.firstIndex(of: ":").map { authority[authority.index(after: $0)...] }
        guard !hostPart.isEmpty else { throw invalid("the host is missing: redis://host:port/db") }
        guard hostPart.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }) else {
            throw invalid("the host name holds characters a host name cannot have")
        }
        return (hostPart, portPart)
    }

    private static func port(_ text: Substring) throws(StoreError) -> Int {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }),
              let number = Int(text), (1...65535).contains(number) else {
            throw invalid("the port must be a number from 1 to 65535")
        }
        return number
    }

    /// The URL as it may appear in a log: the password is never shown.
    var redacted: String {
        let credentials = password == nil ? "" : "\(username ?? ""):[redacted]@"
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "rediss" : "redis")://\(credentials)\(shownHost):\(port)/\(database)"
    }

    private static func invalid(_ reason: String) -> StoreError {
        StoreError(.invalidConfiguration, "Redis URL: \(reason)")
    }

    /// RFC 3986 percent-decoding, so a password may carry ':', '@' or '/' safely encoded.
    private static func percentDecoded(_ text: Substring, _ what: String) throws(StoreError) -> String {
        guard let decoded = PercentDecoding.decode(text.utf8, plusIsSpace: false) else {
            throw invalid("the \(what) has a malformed %-escape or is not valid UTF-8 once decoded")
        }
        guard !decoded.contains("\u{0}") else {
            throw invalid("the \(what) contains a NUL byte")
        }
        return decoded
    }
}
