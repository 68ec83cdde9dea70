import StorekeeperCore

/// The bearer-token check for internal functions served over HTTP: which of the deployment's
/// tokens (`STOREKEEPER_ADMIN_TOKEN`, `STOREKEEPER_TOKENS`) a request carries, if any.
enum AdminAuthorization {
    /// True when `header` is `Bearer <token>` (scheme case-insensitive, RFC 6750) with
    /// exactly `token`, compared in constant time.
    static func accepts(header: String?, token: String) -> Bool {
        caller(header: header, among: [NamedToken(name: "admin", scope: .admin, token: token)]) != nil
    }

    /// The caller whose token `header` carries, or nil. Every candidate is compared, all of
    /// its bytes, whatever matched before: the time depends on the presented credential's
    /// length and the number of tokens, not on which token (or how much of one) matched.
    static func caller(header: String?, among tokens: [NamedToken]) -> Caller? {
        guard let presented = credential(header) else { return nil }
        var found: Caller?
        for token in tokens {
            let equal = equalsWithoutEarlyExit(presented, token.bytes)
            if equal, found == nil { found = token.caller }
        }
        return found
    }

    /// The deployment's tokens: the admin token (named `admin`) and STOREKEEPER_TOKENS, checked
    /// together (a name at most twice, one scope per name). Nil when neither is set; a
    /// configuration error (exit 78) naming the variable, never a value, when one does not parse.
    static func configuredTokens(_ environment: EnvironmentVariables) throws(FunctionError) -> [NamedToken]? {
        var tokens: [NamedToken] = []
        if let admin = environment.optional(RuntimeSettings.adminToken.name) {
            tokens.append(NamedToken(name: "admin", scope: .admin, token: admin))
        }
        do {
            tokens += try environment.value(RuntimeSettings.tokens) ?? []
        } catch let error as FunctionError {
            throw error
        } catch {
            throw FunctionError.configuration("\(RuntimeSettings.tokens.name) has an invalid value")
        }
        guard !tokens.isEmpty else { return nil }
        do {
            try NamedToken.checkSet(tokens)
        } catch {
            throw FunctionError.configuration("\(RuntimeSettings.adminToken.name) with \(RuntimeSettings.tokens.name) \(error.description)")
        }
        return tokens
    }

    /// The bytes after `Bearer ` and any spaces; nil for another scheme or no header.
    private static func credential(_ header: String?) -> [UInt8]? {
        guard let header else { return nil }
        let bytes = Array(header.utf8)
        let scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count,
              zip(bytes, scheme).allSatisfy({ asciiLowercased($0) == $1 }) else { return nil }
        var start = scheme.count
        while start < bytes.count, bytes[start] == UInt8(ascii: " ") { start += 1 }
        return Array(bytes[start...])
    }

    /// Walks the presented bytes only (the expected ones cycled), so a candidate's length
    /// shows neither in the time nor in an early return.
    private static func equalsWithoutEarlyExit(_ presented: [UInt8], _ expected: [UInt8]) -> Bool {
        guard !expected.isEmpty else { return false }
        var difference: UInt8 = presented.count == expected.count ? 0 : 1
        for index in presented.indices {
            difference |= presented[index] ^ expected[index % expected.count]
        }
        return difference == 0
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
