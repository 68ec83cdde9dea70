import FunctionRuntime

/// The App Store Server API key and where Apple is.
extension StorekeeperSettings {
    static let apiKeyId = Setting<String>.text(
        "APPSTORE_KEY_ID", .required, help: "the App Store Connect API key's id (the kid of every request token)")

    static let apiIssuerId = Setting<String>.text(
        "APPSTORE_ISSUER_ID", .required, help: "the issuer id from App Store Connect's Keys page (the token's iss)")

    /// The path; the key is read at start-up. Never from the catalog: it names a secret.
    static let apiPrivateKey = Setting<String>.text(
        "APPSTORE_PRIVATE_KEY", .required,
        help: "path to the key's .p8 file (PKCS#8 PEM, P-256); read at start-up, never logged")

    static let apiBaseURL = Setting<String>.httpURL(
        "APPSTORE_API_BASE_URL",
        help: "replaces both Apple hosts (https://api.storekit.apple.com, https://api.storekit-sandbox.apple.com): production at the URL, the sandbox at URL/sandbox (tests, proxies)")

    static let apiSandboxBaseURL = Setting<String>.httpURL(
        "APPSTORE_API_SANDBOX_BASE_URL", help: "replaces the sandbox host alone")

    static let apiTimeout = Setting<Int64>(
        "APPSTORE_API_TIMEOUT_SECONDS", .optional, default: "45",
        help: "total time for one call, retries included (default 45, at most 300)"
    ) { text throws(SettingProblem) in
        guard let seconds = Int64(text), (1...300).contains(seconds) else {
            throw SettingProblem("must be a whole number of seconds, 1 to 300")
        }
        return seconds
    }

    static let appStoreAPI: [SettingDeclaration] = [
        apiKeyId.declaration, apiIssuerId.declaration, apiPrivateKey.declaration, apiBaseURL.declaration,
        apiSandboxBaseURL.declaration, apiTimeout.declaration,
    ]
}
