import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// The App Store Server API settings: the API key (`APPSTORE_KEY_ID`, `APPSTORE_ISSUER_ID`,
/// `APPSTORE_PRIVATE_KEY`), the app (`APPSTORE_BUNDLE_ID`), where Apple is
/// (`APPSTORE_API_BASE_URL` for tests and proxies), and, when `APPSTORE_ROOT_CERTS` is set,
/// the verifier that decodes signed fields. Missing key material is exit 78.
struct AppStoreAPISettings {
    static let apiVariables: [EnvironmentVariableHelp] = [
        .required("APPSTORE_KEY_ID", "the App Store Connect API key's id (the kid of every request token)"),
        .required("APPSTORE_ISSUER_ID", "the issuer id from App Store Connect's Keys page (the token's iss)"),
        .required("APPSTORE_PRIVATE_KEY", "path to the key's .p8 file (PKCS#8 PEM, P-256); read at start-up, never logged"),
        .required("APPSTORE_BUNDLE_ID", "the app's bundle id (the token's bid; signed data for another app is refused)"),
        .optional("APPSTORE_API_BASE_URL", "replaces both Apple hosts (https://api.storekit.apple.com, https://api.storekit-sandbox.apple.com): production at the URL, the sandbox at URL/sandbox (tests, proxies)"),
        .optional("APPSTORE_API_SANDBOX_BASE_URL", "replaces the sandbox host alone"),
        .optional("APPSTORE_API_TIMEOUT_SECONDS", "total time for one call, retries included (default 45, at most 300)"),
        .optional("APPSTORE_ROOT_CERTS", "trusted root certificates (comma-separated files or folders); needed to decode signed fields (\"decode\": true)"),
        .optional("APPSTORE_APP_APPLE_ID", "the numeric App Apple ID; required with APPSTORE_ROOT_CERTS when Production is accepted"),
        .optional("APPSTORE_ENVIRONMENT", "accepted environments (default Production,Sandbox); with Sandbox accepted, a lookup production does not know is asked of the sandbox"),
        .optional("APPSTORE_ONLINE_CHECKS", "OCSP checks while decoding: off, soft (default), hard"),
        .optional(Adapters.caBundleVariable, "CA file for outgoing HTTPS (tests); the system's CAs otherwise"),
        .optional(StoreLocation.variable, "where the verifier's caches live: sqlite:<path> (default sqlite:var/storekeeper.db) or redis://..."),
    ]

    let credentials: AppStoreAPICredentials
    let baseURLs: AppStoreAPIBaseURLs
    let retryPolicy: AppStoreAPIRetryPolicy
    let acceptedEnvironments: Set<String>
    /// nil when APPSTORE_ROOT_CERTS is not set: the API works, decoding does not.
    let verification: AppStoreSettings?

    init(environment: EnvironmentVariables) throws {
        let keyId = try environment.required("APPSTORE_KEY_ID")
        let issuerId = try environment.required("APPSTORE_ISSUER_ID")
        let bundleId = try environment.required("APPSTORE_BUNDLE_ID")
        let keyPath = try environment.required("APPSTORE_PRIVATE_KEY")
        guard let pem = try? String(contentsOfFile: keyPath, encoding: .utf8) else {
            throw FunctionError.configuration("APPSTORE_PRIVATE_KEY: cannot read \(keyPath)")
        }
        let key: ECPrivateKey
        do {
            key = try ECPrivateKey(pem: pem)
        } catch {
            throw FunctionError.configuration("APPSTORE_PRIVATE_KEY: \(keyPath) is not a P-256 PKCS#8 PEM key")
        }
        credentials = AppStoreAPICredentials(keyId: keyId, issuerId: issuerId, bundleId: bundleId, privateKey: key)

        var urls = AppStoreAPIBaseURLs.apple
        if let base = environment.optional("APPSTORE_API_BASE_URL") {
            guard base.hasPrefix("https://") || base.hasPrefix("http://") else {
                throw FunctionError.configuration("APPSTORE_API_BASE_URL must be an http(s) URL")
            }
            urls = .overridden(base)
        }
        if let sandbox = environment.optional("APPSTORE_API_SANDBOX_BASE_URL") {
            guard sandbox.hasPrefix("https://") || sandbox.hasPrefix("http://") else {
                throw FunctionError.configuration("APPSTORE_API_SANDBOX_BASE_URL must be an http(s) URL")
            }
            urls = AppStoreAPIBaseURLs(production: urls.production, sandbox: sandbox)
        }
        baseURLs = urls

        var policy = AppStoreAPIRetryPolicy.default
        if let text = environment.optional("APPSTORE_API_TIMEOUT_SECONDS") {
            guard let seconds = Int64(text), (1...300).contains(seconds) else {
                throw FunctionError.configuration("APPSTORE_API_TIMEOUT_SECONDS must be a whole number of seconds, 1 to 300")
            }
            policy.deadline = .seconds(seconds)
            policy.attemptTimeout = min(policy.attemptTimeout, .seconds(seconds))
        }
        retryPolicy = policy

        // Checked like every App Store function's: a typo must not silently turn the sandbox
        // fallback off.
        acceptedEnvironments = try AppStoreSettings.acceptedEnvironments(environment)
        verification = environment.optional("APPSTORE_ROOT_CERTS") == nil ? nil : try AppStoreSettings(environment: environment)
    }

    func makeClient(context: FunctionContext, gate: any AppStoreAPIRequestGate = OpenRequestGate()) throws -> AppStoreServerAPIClient {
        // The client dates its tokens by the real wall time, which STOREKEEPER_NOW never pins.
        AppStoreServerAPIClient(credentials: credentials, http: try context.adapters.http(), baseURLs: baseURLs,
                                time: context.clock, retryPolicy: retryPolicy, gate: gate)
    }

    /// Lookups by transaction id ask the sandbox when production does not know the id.
    var sandboxFallback: Bool { acceptedEnvironments.contains("Sandbox") }

    /// The environment named in a request ("Production" when absent).
    static func environment(_ name: String?) throws -> AppStoreAPIEnvironment {
        guard let name else { return .production }
        guard let environment = AppStoreAPIEnvironment(rawValue: name) else {
            throw FunctionError.badInput(message: "environment must be Production or Sandbox")
        }
        return environment
    }
}
