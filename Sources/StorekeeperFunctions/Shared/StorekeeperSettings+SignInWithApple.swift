import FunctionRuntime
import StorekeeperCore

/// Sign in with Apple and the data key that seals refresh tokens.
extension StorekeeperSettings {
    static let siwaTeamId = Setting<String>.text(
        "SIWA_TEAM_ID", .required, help: "your Apple developer team id: the client secret's iss")

    static let siwaKeyId = Setting<String>.text(
        "SIWA_KEY_ID", .required, help: "the id of the Sign in with Apple key: the client secret's kid")

    /// The path; the key is read when a client secret is made. Never from the catalog.
    static let siwaPrivateKey = Setting<String>.text(
        "SIWA_PRIVATE_KEY", .required, help: "path to that key's .p8 file (PKCS#8 PEM, P-256)")

    static let siwaClientIds = Setting<[String]>.list(
        "SIWA_CLIENT_IDS", .required, of: "client id",
        help: "comma-separated client ids: the web Services ID first, then the apps' bundle ids; a token for any other audience is refused")

    static let siwaRedirectURI = Setting<String>.text(
        "SIWA_REDIRECT_URI", .required, help: "the callback URL registered with Apple (…/auth/apple/callback)")

    static let siwaAppURL = Setting<String>.text(
        "SIWA_APP_URL", .required, help: "where a signed-in browser is sent (with ?error=... when sign-in failed)")

    /// 64 hex digits or standard base64 of exactly 32 bytes.
    static let dataKey = Setting<[UInt8]>(
        "STOREKEEPER_DATA_KEY", .required, secret: true,
        help: "32-byte key sealing refresh tokens at rest (AES-256-GCM): 64 hex digits or base64"
    ) { text throws(SettingProblem) in
        guard let bytes = keyBytes(text) else { throw SettingProblem("has an invalid value") }
        return bytes
    }

    static let siwaBaseURL = Setting<String>(
        "SIWA_BASE_URL", .optional, default: AppleIDClient.defaultBaseURL,
        help: "Apple's ID server (default https://appleid.apple.com); tests point it at a fake on loopback"
    ) { text throws(SettingProblem) in
        guard isAllowedBaseURL(text) else {
            throw SettingProblem("must be an https URL (plain http only on loopback, for tests)")
        }
        return text
    }

    static let siwaAcceptedIssuers = Setting<[String]>.list(
        "SIWA_ACCEPTED_ISSUERS", .optional, of: "issuer", default: IdentityTokenVerifier.Configuration.appleIssuer,
        help: "comma-separated accepted token issuers (default https://appleid.apple.com)")

    static let siwaLeeway = Setting<Int64>(
        "SIWA_LEEWAY_SECONDS", .optional, default: "60", help: "clock skew allowed on exp and iat (default 60, at most 600)"
    ) { text throws(SettingProblem) in
        guard let seconds = Int64(text), (0...600).contains(seconds) else { throw SettingProblem("has an invalid value") }
        return seconds
    }

    static let signInWithApple: [SettingDeclaration] = [
        siwaTeamId.declaration, siwaKeyId.declaration, siwaPrivateKey.declaration, siwaClientIds.declaration,
        siwaRedirectURI.declaration, siwaAppURL.declaration, dataKey.declaration, siwaBaseURL.declaration,
        siwaAcceptedIssuers.declaration, siwaLeeway.declaration,
    ]

    /// https with a host, or plain http only when the host is exactly 127.0.0.1 or localhost
    /// (tests): `http://localhost.example.com` would send the client secret and the tokens in
    /// clear to somebody else.
    static func isAllowedBaseURL(_ url: String) -> Bool {
        let scheme: String
        let rest: Substring
        if url.lowercased().hasPrefix("https://") {
            (scheme, rest) = ("https", url.dropFirst("https://".count))
        } else if url.lowercased().hasPrefix("http://") {
            (scheme, rest) = ("http", url.dropFirst("http://".count))
        } else {
            return false
        }
        // The authority ends at the first /, ? or #; no user info; an optional :port of digits.
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return false }
        var host = authority
        if let colon = authority.lastIndex(of: ":") {
            let port = authority[authority.index(after: colon)...]
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
            host = authority[..<colon]
        }
        guard !host.isEmpty else { return false }
        if scheme == "https" { return true }
        return host == "127.0.0.1" || host.lowercased() == "localhost"
    }

    /// 64 hex digits or standard base64 of exactly 32 bytes.
    static func keyBytes(_ text: String) -> [UInt8]? {
        let trimmed = Substring(text).trimmedOfSpaces
        if trimmed.count == 64, trimmed.utf8.allSatisfy({ $0 < 128 && Character(UnicodeScalar($0)).isHexDigit }) {
            var bytes: [UInt8] = []
            var index = trimmed.startIndex
            while index < trimmed.endIndex {
                let next = trimmed.index(index, offsetBy: 2)
                guard let byte = UInt8(trimmed[index..<next], radix: 16) else { return nil }
                bytes.append(byte)
                index = next
            }
            return bytes
        }
        guard let bytes = Base64.decode(trimmed), bytes.count == 32 else { return nil }
        return bytes
    }
}
