import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// The settings of `migrate-receipt`: the legacy receipt roots, the app, the accepted
/// environments, and the legacy verifyReceipt endpoint with its shared secret.
struct ReceiptSettings {
    static let rootsVariable = "APPSTORE_RECEIPT_ROOT_CERTS"
    static let sharedSecretVariable = "APPSTORE_SHARED_SECRET"
    static let verifyReceiptURLVariable = "APPSTORE_VERIFY_RECEIPT_URL"

    static let variables: [EnvironmentVariableHelp] = [
        .required(rootsVariable, "comma-separated files or folders of the roots legacy receipts chain to (Apple Inc. Root from `make apple-roots`, or the test receipt PKI's root)"),
        .required("APPSTORE_BUNDLE_ID", "the app's bundle id; another app's receipt is INVALID_APP_IDENTIFIER"),
        .optional("APPSTORE_ENVIRONMENT", "comma-separated accepted environments: Production, Sandbox, Xcode (default Production,Sandbox); Xcode-signed receipts only when Xcode is listed"),
        .optional(sharedSecretVariable, "the app's shared secret for verifyReceipt; required by legacyCheck requests (exit 78 without it), never logged"),
        .optional(verifyReceiptURLVariable, "base URL of a verifyReceipt stand-in (tests): <base>/buy/verifyReceipt and <base>/sandbox/verifyReceipt; Apple's endpoints otherwise"),
        .optional(RuntimeVariable.caBundle, "CA file for outgoing HTTPS (tests); the system's CAs otherwise"),
    ]

    let verifier: ReceiptVerifier
    let sharedSecret: String?
    let endpoints: VerifyReceiptClient.Endpoints

    init(environment: EnvironmentVariables) throws {
        let bundleId = try environment.required("APPSTORE_BUNDLE_ID")
        let accepted = try AppStoreSettings.acceptedEnvironments(environment)
        let rootPaths = try environment.required(Self.rootsVariable)
            .split(separator: ",").map { $0.trimmedOfSpaces }.filter { !$0.isEmpty }
        guard !rootPaths.isEmpty else { throw FunctionError.configuration("\(Self.rootsVariable) names no certificate") }
        for path in rootPaths where !FileManager.default.isReadableFile(atPath: path) {
            throw FunctionError.configuration("\(Self.rootsVariable): cannot read \(path)")
        }
        let roots = TrustAnchors {
            let certificates = try rootPaths.flatMap { try Certificate.load(path: $0) }
            guard !certificates.isEmpty else { throw FunctionError.configuration("\(Self.rootsVariable) names no certificate") }
            return certificates
        }
        verifier = ReceiptVerifier(configuration: .init(trustAnchors: roots, bundleId: bundleId, acceptedEnvironments: accepted))
        sharedSecret = environment.optional(Self.sharedSecretVariable).flatMap { $0.isEmpty ? nil : $0 }
        if let base = environment.optional(Self.verifyReceiptURLVariable) {
            guard base.hasPrefix("https://") || base.hasPrefix("http://") else {
                throw FunctionError.configuration("\(Self.verifyReceiptURLVariable) must be an http(s) URL")
            }
            endpoints = .under(base)
        } else {
            endpoints = .apple
        }
    }
}
