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
