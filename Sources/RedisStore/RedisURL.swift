import StorekeeperCore

/// Where a Redis server is and how to log in: `redis://[[user]:password@]host[:port][/db]`.
///
/// Parsed strictly: anything this adapter would have to guess about (a query string, TLS,
/// a user without a password, an unbracketed IPv6 address) is a configuration error, and no
/// message ever repeats the credentials.
struct RedisURL: Sendable, Equatable {
    var host: String
    var port: Int
    /// Sent as `AUTH username password` (Redis 6 ACL users) when set.
    var username: String?
    /// Sent as `AUTH password` (or with the username) when set.
    var password: String?
    /// Chosen with `SELECT` when not 0.
    var database: Int

    static let defaultPort = 6379

    init(host: String, port: Int = Self.defaultPort, username: String? = nil, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    init(parsing text: String) throws(StoreError) {
        let schemeEnd = text.firstRange(of: "://")
        guard let schemeEnd else { throw Self.invalid("expected redis://[[user]:password@]host[:port][/db]") }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "redis" else {
            if scheme == "rediss" {
                throw Self.invalid("rediss:// (TLS) is not supported: the hiredis this adapter links has no TLS; use a TLS tunnel or a private network")
            }
            throw Self.invalid("the scheme must be redis://")
        }
        var rest = text[schemeEnd.upperBound...]
        guard !rest.contains("?"), !rest.contains("#") else {
            throw Self.invalid("query strings and fragments are not supported: redis://[[user]:password@]host[:port][/db]")
        }

        // The last '@' ends the credentials, so a password holding '@' or '/' still parses.
        username = nil
        password = nil
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            guard let colon = userInfo.firstIndex(of: ":") else {
                throw Self.invalid("a user needs a password: redis://user:password@host or redis://:password@host")
            }
            let user = try Self.percentDecoded(userInfo[..<colon], "user name")
            let secret = try Self.percentDecoded(userInfo[userInfo.index(after: colon)...], "password")
            guard !secret.isEmpty else { throw Self.invalid("the password is empty") }
            username = user.isEmpty ? nil : user
            password = secret
        }

        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        let path = rest[slash...].dropFirst()

        if path.isEmpty {
            database = 0
        } else {
            guard path.allSatisfy(\.isASCII), path.allSatisfy(\.isNumber), path.count <= 5, let number = Int(path) else {
                throw Self.invalid("the database must be a number: redis://host:port/0")
            }
            database = number
        }

        let hostPart: Substring
        let portPart: Substring?
        if authority.hasPrefix("[") {
            // An IPv6 literal: [::1] or [::1]:6380.
            guard let close = authority.firstIndex(of: "]") else { throw Self.invalid("an IPv6 address needs its closing ']'") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.isEmpty {
                portPart = nil
            } else {
                guard after.hasPrefix(":") else { throw Self.invalid("expected :port after the IPv6 address") }
                portPart = after.dropFirst()
            }
            guard !hostPart.isEmpty, hostPart.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw Self.invalid("the IPv6 address is malformed")
            }
        } else {
            let colons = authority.filter { $0 == ":" }.count
            guard colons <= 1 else { throw Self.invalid("an IPv6 address must be in brackets: redis://[::1]:6379") }
            if let colon = authority.firstIndex(of: ":") {
                hostPart = authority[..<colon]
                portPart = authority[authority.index(after: colon)...]
            } else {
                hostPart = authority
                portPart = nil
            }
            guard !hostPart.isEmpty else { throw Self.invalid("the host is missing: redis://host:port/db") }
            guard hostPart.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }) else {
                throw Self.invalid("the host name holds characters a host name cannot have")
            }
        }
        host = String(hostPart)

        if let portPart {
            guard !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let number = Int(portPart), (1...65535).contains(number) else {
                throw Self.invalid("the port must be a number from 1 to 65535")
            }
            port = number
        } else {
            port = Self.defaultPort
        }
    }

    /// The URL as it may appear in a log: the password is never shown.
    var redacted: String {
        let credentials = password == nil ? "" : "\(username ?? ""):[redacted]@"
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "redis://\(credentials)\(shownHost):\(port)/\(database)"
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
