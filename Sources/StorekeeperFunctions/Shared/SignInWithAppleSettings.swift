import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// The `SIWA_*` settings and the data key, read once at start-up. Each function asks only
/// for the parts it uses, so a function that never mints a client secret does not need the
/// private key; a missing part is exit 78 naming the variable.
struct SignInWithAppleSettings {
    enum Part {
        /// SIWA_CLIENT_IDS and the verification options: every function.
        case identity
        /// SIWA_TEAM_ID, SIWA_KEY_ID, SIWA_PRIVATE_KEY: functions that call /auth/token or /auth/revoke.
        case clientSecret
        /// The same variables, checked present at start-up, the key read only when a secret
        /// is made: for a function that seldom needs one (siwa-verify-token's session check).
        case clientSecretOnDemand
        /// SIWA_REDIRECT_URI: the web flow.
        case redirect
        /// SIWA_APP_URL: where a signed-in browser goes.
        case appURL
        /// STOREKEEPER_DATA_KEY: functions that store or read refresh tokens.
        case dataKey
    }

    static let storeVariable = EnvironmentVariableHelp(name: StoreLocation.variable, required: false,
        meaning: "where state lives: sqlite:<path> (default sqlite:var/storekeeper.db) or redis://...")

    static func variables(_ parts: [Part]) -> [EnvironmentVariableHelp] {
        var variables: [EnvironmentVariableHelp] = []
        if parts.contains(.clientSecret) || parts.contains(.clientSecretOnDemand) {
            variables += [
                .required("SIWA_TEAM_ID", "your Apple developer team id: the client secret's iss"),
                .required("SIWA_KEY_ID", "the id of the Sign in with Apple key: the client secret's kid"),
                .required("SIWA_PRIVATE_KEY", "path to that key's .p8 file (PKCS#8 PEM, P-256)"),
            ]
        }
        variables.append(.required("SIWA_CLIENT_IDS", "comma-separated client ids: the web Services ID first, then the apps' bundle ids; a token for any other audience is refused"))
        if parts.contains(.redirect) {
            variables.append(.required("SIWA_REDIRECT_URI", "the callback URL registered with Apple (…/auth/apple/callback)"))
        }
        if parts.contains(.appURL) {
            variables.append(.required("SIWA_APP_URL", "where a signed-in browser is sent (with ?error=... when sign-in failed)"))
        }
        if parts.contains(.dataKey) {
            variables.append(.required("STOREKEEPER_DATA_KEY", "32-byte key sealing refresh tokens at rest (AES-256-GCM): 64 hex digits or base64"))
        }
        variables += [
            .optional("SIWA_BASE_URL", "Apple's ID server (default https://appleid.apple.com); tests point it at a fake on loopback"),
            .optional("SIWA_ACCEPTED_ISSUERS", "comma-separated accepted token issuers (default https://appleid.apple.com)"),
            .optional("SIWA_LEEWAY_SECONDS", "clock skew allowed on exp and iat (default 60, at most 600)"),
            .optional(Adapters.caBundleVariable, "CA file for outgoing HTTPS (tests); the system's CAs otherwise"),
            storeVariable,
        ]
        return variables
    }

    let clientIds: [String]
    let baseURL: String
    let verifierConfiguration: IdentityTokenVerifier.Configuration
    let clientSecret: ClientSecret?
    let redirectURI: String?
    let appURL: String?
    let dataKey: AESGCMKey?

    init(environment: EnvironmentVariables, parts: [Part]) throws {
        // In the order --help lists them, so the first missing one is the one named.
        if parts.contains(.clientSecret) || parts.contains(.clientSecretOnDemand) {
            let teamId = try environment.required("SIWA_TEAM_ID")
            let keyId = try environment.required("SIWA_KEY_ID")
            let path = try environment.required("SIWA_PRIVATE_KEY")
            clientSecret = parts.contains(.clientSecret)
                ? ClientSecret(teamId: teamId, keyId: keyId, key: try Self.loadKey(path))
                : ClientSecret(teamId: teamId, keyId: keyId, loadingKey: { try Self.loadKey(path) })
        } else {
            clientSecret = nil
        }
        clientIds = try environment.required("SIWA_CLIENT_IDS").split(separator: ",").map { $0.trimmedOfSpaces }.filter { !$0.isEmpty }
        guard !clientIds.isEmpty else { throw FunctionError.configuration("SIWA_CLIENT_IDS names no client id") }
        redirectURI = parts.contains(.redirect) ? try environment.required("SIWA_REDIRECT_URI") : nil
        appURL = parts.contains(.appURL) ? try environment.required("SIWA_APP_URL") : nil
        if parts.contains(.dataKey) {
            dataKey = try environment.required("STOREKEEPER_DATA_KEY") { text in
                guard let bytes = Self.keyBytes(text) else { return nil }
                return try AESGCMKey(bytes: bytes)
            }
        } else {
            dataKey = nil
        }

        let base = environment.optional("SIWA_BASE_URL") ?? AppleIDClient.defaultBaseURL
        guard Self.isAllowedBaseURL(base) else {
            throw FunctionError.configuration("SIWA_BASE_URL must be an https URL (plain http only on loopback, for tests)")
        }
        baseURL = base
        let issuers = (environment.optional("SIWA_ACCEPTED_ISSUERS") ?? IdentityTokenVerifier.Configuration.appleIssuer)
            .split(separator: ",").map { $0.trimmedOfSpaces }.filter { !$0.isEmpty }
        guard !issuers.isEmpty else { throw FunctionError.configuration("SIWA_ACCEPTED_ISSUERS names no issuer") }
        var leeway: Int64 = 60
        if environment.optional("SIWA_LEEWAY_SECONDS") != nil {
            leeway = try environment.required("SIWA_LEEWAY_SECONDS") { Int64($0).flatMap { (0...600).contains($0) ? $0 : nil } }
        }
        verifierConfiguration = IdentityTokenVerifier.Configuration(clientIds: clientIds, acceptedIssuers: issuers, leeway: .seconds(leeway))
    }

    /// The Sign in with Apple key from its .p8 file; a configuration error otherwise.
    static func loadKey(_ path: String) throws -> ECPrivateKey {
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw FunctionError.configuration("SIWA_PRIVATE_KEY: cannot read the key file")
        }
        do {
            return try ECPrivateKey(pem: pem)
        } catch {
            throw FunctionError.configuration("SIWA_PRIVATE_KEY is not a P-256 private key in PEM")
        }
    }

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

    /// The web Services ID: the first client id.
    var webClientId: String { clientIds[0] }

    func client(adapters: Adapters) -> AppleIDClient {
        AppleIDClient(baseURL: baseURL, http: { try adapters.http() })
    }

    func verifier(adapters: Adapters) -> IdentityTokenVerifier {
        IdentityTokenVerifier(configuration: verifierConfiguration,
                              keys: AppleKeyCache(store: { try adapters.store() }, client: client(adapters: adapters)))
    }

    /// The sign-in steps wired to this process's adapters; needs the client secret part.
    func flow(adapters: Adapters) throws -> SignInFlow {
        guard let clientSecret else { throw FunctionError.internalError(message: "the client secret is not configured") }
        let store = try adapters.store()
        return SignInFlow(verifier: verifier(adapters: adapters), client: client(adapters: adapters), clientSecret: clientSecret,
                          accounts: AccountRepository(store: store, dataKey: dataKey), sessions: SessionRepository(store: store))
    }
}

/// The pre-authorization cookie that binds a web sign-in to the browser that started it:
/// `siwa-start` sets it, `siwa-callback` checks it against the state and clears it.
enum PreAuthorizationCookie {
    /// `__Host-`: the browser takes it only Secure, from this host, with Path=/, so a sibling
    /// subdomain cannot plant its own value (the login-CSRF attacker's first move).
    static let name = "__Host-storekeeper_siwa"

    /// SameSite=None because Apple's form_post is a cross-site POST: a Lax or Strict cookie
    /// would not come back with it. Lives as long as the state it stands for.
    static func setting(_ secret: String) -> String {
        "\(name)=\(secret); Path=/; Max-Age=\(AuthorizationStateRepository.lifetime.components.seconds); HttpOnly; Secure; SameSite=None"
    }

    /// Tells the browser to drop it (same name, path and attributes, so it replaces that cookie).
    static let clearing = "\(name)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=None"

    /// The cookie's value in the request's `Cookie` header; nil when it is absent, empty, or
    /// present more than once (this host sets one; a second can only come from elsewhere,
    /// and picking one of two would let the stranger's win).
    static func value(in request: FunctionRequest) -> String? {
        guard let header = request.header("cookie") else { return nil }
        var found: [Substring] = []
        for pair in header.split(separator: ";") {
            let trimmed = pair.trimmedOfSpaces
            guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
            found.append(trimmed[trimmed.index(after: equals)...])
        }
        guard found.count == 1, let only = found.first, !only.isEmpty else { return nil }
        return String(only)
    }
}
