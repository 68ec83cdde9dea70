import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// The settings of `migrate-receipt`: the legacy receipt roots, the catalog's apps (or the
/// one of APPSTORE_BUNDLE_ID) with their accepted environments, and the legacy verifyReceipt
/// endpoint with its shared secret.
struct ReceiptSettings {
    static let variables: [SettingUse] = [
        .declared(StorekeeperSettings.receiptRootCertificates),
        .declared(StorekeeperSettings.catalog, "receipts of any of its apps, each in its environments"),
        .declared(StorekeeperSettings.bundleId),
        .declared(StorekeeperSettings.acceptedEnvironments, "Xcode-signed receipts only when Xcode is listed"),
        .declared(StorekeeperSettings.sharedSecret),
        .declared(StorekeeperSettings.verifyReceiptURL),
        .declared(RuntimeSettings.caBundle),
    ]

    let catalog: Catalog
    /// Receipts of any of the catalog's apps.
    let verifier: ReceiptVerifier
    let sharedSecret: String?
    let endpoints: VerifyReceiptClient.Endpoints

    init(environment: EnvironmentVariables) throws {
        catalog = try StorekeeperSettings.catalog(in: environment)
        let rootPaths = try environment.required(StorekeeperSettings.receiptRootCertificates)
        let roots = TrustAnchors {
            let certificates = try rootPaths.flatMap { try Certificate.load(path: $0) }
            guard !certificates.isEmpty else {
                throw FunctionError.configuration("\(StorekeeperSettings.receiptRootCertificates.name) names no certificate")
            }
            return certificates
        }
        verifier = ReceiptVerifier(configuration: .init(trustAnchors: roots, apps: catalog.apps))
        sharedSecret = try environment.value(StorekeeperSettings.sharedSecret)
        endpoints = try environment.value(StorekeeperSettings.verifyReceiptURL).map { .under($0) } ?? .apple
    }

    /// Receipts of the app a request names (that app's environments; another app's receipt is
    /// INVALID_APP_IDENTIFIER), or of any of the catalog's apps.
    func verifier(for bundleId: String?) throws -> ReceiptVerifier {
        guard let bundleId else { return verifier }
        let app = try catalog.app(requested: bundleId)
        return ReceiptVerifier(configuration: .init(trustAnchors: verifier.configuration.trustAnchors, apps: [app]))
    }
}
