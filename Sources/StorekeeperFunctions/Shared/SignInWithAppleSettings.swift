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

    static func variables(_ parts: [Part]) -> [SettingUse] {
        var variables: [SettingUse] = []
        if parts.contains(.clientSecret) || parts.contains(.clientSecretOnDemand) {
            variables += [.declared(StorekeeperSettings.siwaTeamId), .declared(StorekeeperSettings.siwaKeyId),
                          .declared(StorekeeperSettings.siwaPrivateKey)]
        }
        variables.append(.declared(StorekeeperSettings.siwaClientIds))
        if parts.contains(.redirect) { variables.append(.declared(StorekeeperSettings.siwaRedirectURI)) }
        if parts.contains(.appURL) { variables.append(.declared(StorekeeperSettings.siwaAppURL)) }
        if parts.contains(.dataKey) { variables.append(.declared(StorekeeperSettings.dataKey)) }
        return variables + [
            .declared(StorekeeperSettings.siwaBaseURL), .declared(StorekeeperSettings.siwaAcceptedIssuers),
            .declared(StorekeeperSettings.siwaLeeway), .declared(RuntimeSettings.caBundle), .declared(RuntimeSettings.storeURL),
        ]
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
            let teamId = try environment.required(StorekeeperSettings.siwaTeamId)
            let keyId = try environment.required(StorekeeperSettings.siwaKeyId)
            let path = try environment.required(StorekeeperSettings.siwaPrivateKey)
            clientSecret = parts.contains(.clientSecret)
                ? ClientSecret(teamId: teamId, keyId: keyId, key: try Self.loadKey(path))
                : ClientSecret(teamId: teamId, keyId: keyId, loadingKey: { try Self.loadKey(path) })
        } else {
            clientSecret = nil
        }
        clientIds = try environment.required(StorekeeperSettings.siwaClientIds)
        redirectURI = parts.contains(.redirect) ? try environment.required(StorekeeperSettings.siwaRedirectURI) : nil
        appURL = parts.contains(.appURL) ? try environment.required(StorekeeperSettings.siwaAppURL) : nil
        if parts.contains(.dataKey) {
            let bytes = try environment.required(StorekeeperSettings.dataKey)
            do {
                dataKey = try AESGCMKey(bytes: bytes)
            } catch {
                throw FunctionError.configuration("\(StorekeeperSettings.dataKey.name) has an invalid value")
            }
        } else {
            dataKey = nil
        }
        baseURL = try environment.required(StorekeeperSettings.siwaBaseURL)
        let issuers = try environment.required(StorekeeperSettings.siwaAcceptedIssuers)
        let leeway = try environment.required(StorekeeperSettings.siwaLeeway)
        verifierConfiguration = IdentityTokenVerifier.Configuration(clientIds: clientIds, acceptedIssuers: issuers, leeway: .seconds(leeway))
    }

    /// The Sign in with Apple key from its .p8 file; a configuration error otherwise.
    static func loadKey(_ path: String) throws -> ECPrivateKey {
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw FunctionError.configuration("\(StorekeeperSettings.siwaPrivateKey.name): cannot read the key file")
        }
        do {
            return try ECPrivateKey(pem: pem)
        } catch {
            throw FunctionError.configuration("\(StorekeeperSettings.siwaPrivateKey.name) is not a P-256 private key in PEM")
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

    func client(adapters: any FunctionAdapters) -> AppleIDClient {
        AppleIDClient(baseURL: baseURL, http: { try adapters.http() })
    }

    func verifier(adapters: any FunctionAdapters) -> IdentityTokenVerifier {
        IdentityTokenVerifier(configuration: verifierConfiguration,
                              keys: AppleKeyCache(store: adapters.selfOpeningStore, client: client(adapters: adapters)))
    }

    /// The sign-in steps wired to this process's adapters; needs the client secret part.
    func flow(adapters: any FunctionAdapters) throws -> SignInFlow {
        guard let clientSecret else { throw FunctionError.internalError(message: "the client secret is not configured") }
        let store = try adapters.store()
        return SignInFlow(verifier: verifier(adapters: adapters), client: client(adapters: adapters), clientSecret: clientSecret,
                          accounts: AccountRepository(store: store, dataKey: dataKey), sessions: SessionRepository(store: store))
    }
}

extension SignInWithAppleSettings {
    /// Runs a step that talks to Apple. Apple refusing our client (`invalid_client`,
    /// `unauthorized_client`) is our configuration, not the caller's mistake: it becomes a
    /// configuration error (HTTP 500, exit 78; over HTTP the explanation goes to the log only).
    static func callingApple<T>(_ step: () throws -> T) throws -> T {
        do {
            return try step()
        } catch let error as AppleIDError where error.kind == .invalidClient || error.kind == .unauthorizedClient {
            throw FunctionError(code: error.code, message: error.reason, kind: .configuration)
        }
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
