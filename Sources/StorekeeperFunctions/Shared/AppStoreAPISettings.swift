import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// The App Store Server API settings: the team's API key (`APPSTORE_KEY_ID`,
/// `APPSTORE_ISSUER_ID`, `APPSTORE_PRIVATE_KEY`), the catalog's apps (one key serves them
/// all; each client's tokens carry its app's `bid`), where Apple is (`APPSTORE_API_BASE_URL`
/// for tests and proxies), and, when `APPSTORE_ROOT_CERTS` is set, the verifier that decodes
/// signed fields. Missing key material is exit 78.
struct AppStoreAPISettings {
    /// What an App Store Server API function lists in its descriptor.
    static let apiVariables: [SettingUse] = [
        .declared(StorekeeperSettings.apiKeyId), .declared(StorekeeperSettings.apiIssuerId),
        .declared(StorekeeperSettings.apiPrivateKey), .declared(StorekeeperSettings.catalog, "each app's tokens carry its bid"),
        .declared(StorekeeperSettings.bundleId, "the token's bid"),
        .declared(StorekeeperSettings.apiBaseURL), .declared(StorekeeperSettings.apiSandboxBaseURL),
        .declared(StorekeeperSettings.apiTimeout),
        .optional(StorekeeperSettings.rootCertificates, "needed to decode signed fields (\"decode\": true)"),
        .declared(StorekeeperSettings.appAppleId), .declared(StorekeeperSettings.acceptedEnvironments,
            "with Sandbox accepted, a lookup production does not know is asked of the sandbox"),
        .declared(StorekeeperSettings.onlineChecks), .declared(RuntimeSettings.caBundle), .declared(RuntimeSettings.storeURL),
    ]

    private let keyId: String
    private let issuerId: String
    private let privateKey: ECPrivateKey
    let catalog: Catalog
    let baseURLs: AppStoreAPIBaseURLs
    let retryPolicy: AppStoreAPIRetryPolicy
    /// nil when APPSTORE_ROOT_CERTS is not set: the API works, decoding does not.
    let verification: AppStoreSettings?

    init(environment: EnvironmentVariables) throws {
        keyId = try environment.required(StorekeeperSettings.apiKeyId)
        issuerId = try environment.required(StorekeeperSettings.apiIssuerId)
        // Checked like every App Store function's: a typo must not silently turn the sandbox
        // fallback off.
        catalog = try StorekeeperSettings.catalog(in: environment)
        let keyPath = try environment.required(StorekeeperSettings.apiPrivateKey)
        let name = StorekeeperSettings.apiPrivateKey.name
        guard let pem = try? String(contentsOfFile: keyPath, encoding: .utf8) else {
            throw FunctionError.configuration("\(name): cannot read \(keyPath)")
        }
        do {
            privateKey = try ECPrivateKey(pem: pem)
        } catch {
            throw FunctionError.configuration("\(name): \(keyPath) is not a P-256 PKCS#8 PEM key")
        }

        var urls = AppStoreAPIBaseURLs.apple
        if let base = try environment.value(StorekeeperSettings.apiBaseURL) {
            urls = .overridden(base)
        }
        if let sandbox = try environment.value(StorekeeperSettings.apiSandboxBaseURL) {
            urls = AppStoreAPIBaseURLs(production: urls.production, sandbox: sandbox)
        }
        baseURLs = urls

        var policy = AppStoreAPIRetryPolicy.default
        if environment.isSet(StorekeeperSettings.apiTimeout) {
            let seconds = try environment.required(StorekeeperSettings.apiTimeout)
            policy.deadline = .seconds(seconds)
            policy.attemptTimeout = min(policy.attemptTimeout, .seconds(seconds))
        }
        retryPolicy = policy
        verification = environment.isSet(StorekeeperSettings.rootCertificates)
            ? try AppStoreSettings(environment: environment, catalog: catalog) : nil
    }

    /// The team key, speaking for one app: the tokens' `bid`.
    func credentials(for app: CatalogApp) -> AppStoreAPICredentials {
        AppStoreAPICredentials(keyId: keyId, issuerId: issuerId, bundleId: app.bundleId, privateKey: privateKey)
    }

    /// A client for the app a request names (`bundleId`; the only app without it).
    func makeClient(context: FunctionContext, bundleId: String? = nil,
                    gate: any AppStoreAPIRequestGate = OpenRequestGate()) throws -> AppStoreServerAPIClient {
        try makeClient(context: context, app: catalog.app(requested: bundleId), gate: gate)
    }

    func makeClient(context: FunctionContext, app: CatalogApp,
                    gate: any AppStoreAPIRequestGate = OpenRequestGate()) throws -> AppStoreServerAPIClient {
        // The client dates its tokens by the real wall time, which STOREKEEPER_NOW never pins.
        AppStoreServerAPIClient(credentials: credentials(for: app), http: try context.adapters.http(), baseURLs: baseURLs,
                                time: context.clock, retryPolicy: retryPolicy, gate: gate)
    }

    /// A client speaking for `bundleId` (a refund request's app, catalog or not) with its own retries.
    func makeClient(context: FunctionContext, bundleId: String, retryPolicy: AppStoreAPIRetryPolicy) throws -> AppStoreServerAPIClient {
        let credentials = AppStoreAPICredentials(keyId: keyId, issuerId: issuerId, bundleId: bundleId, privateKey: privateKey)
        return AppStoreServerAPIClient(credentials: credentials, http: try context.adapters.http(), baseURLs: baseURLs,
                                       time: context.clock, retryPolicy: retryPolicy)
    }

    /// Lookups by transaction id ask the sandbox when production does not know the id, for
    /// an app that accepts Sandbox data.
    func sandboxFallback(for app: CatalogApp) -> Bool { app.environments.contains(.sandbox) }

    /// The same for the app a request names.
    func sandboxFallback(bundleId: String? = nil) throws -> Bool {
        sandboxFallback(for: try catalog.app(requested: bundleId))
    }

    /// How a function that calls Apple for one app documents its `bundleId` field.
    static let bundleIdHelp = "bundleId: the app to ask about (one of the catalog's; the token's bid); required when the catalog has several apps"

    /// The environment named in a request ("Production" when absent).
    static func environment(_ name: String?) throws -> AppStoreAPIEnvironment {
        guard let name else { return .production }
        guard let environment = AppStoreAPIEnvironment(rawValue: name) else {
            throw FunctionError.badInput(message: "environment must be Production or Sandbox")
        }
        return environment
    }
}
