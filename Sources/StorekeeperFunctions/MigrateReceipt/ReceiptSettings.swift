import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// The settings of `migrate-receipt`: the legacy receipt roots, the app, the accepted
/// environments, and the legacy verifyReceipt endpoint with its shared secret.
struct ReceiptSettings {
    static let variables: [SettingUse] = [
        .declared(StorekeeperSettings.receiptRootCertificates),
        .declared(StorekeeperSettings.bundleId),
        .declared(StorekeeperSettings.acceptedEnvironments, "Xcode-signed receipts only when Xcode is listed"),
        .declared(StorekeeperSettings.sharedSecret),
        .declared(StorekeeperSettings.verifyReceiptURL),
        .declared(RuntimeSettings.caBundle),
    ]

    let verifier: ReceiptVerifier
    let sharedSecret: String?
    let endpoints: VerifyReceiptClient.Endpoints
    /// The one app's transfer policy (whose purchases move when they arrive for another user).
    let catalog: Catalog

    init(environment: EnvironmentVariables) throws {
        let bundleId = try environment.required(StorekeeperSettings.bundleId)
        let accepted = try environment.required(StorekeeperSettings.acceptedEnvironments)
        let rootPaths = try environment.required(StorekeeperSettings.receiptRootCertificates)
        let roots = TrustAnchors {
            let certificates = try rootPaths.flatMap { try Certificate.load(path: $0) }
            guard !certificates.isEmpty else {
                throw FunctionError.configuration("\(StorekeeperSettings.receiptRootCertificates.name) names no certificate")
            }
            return certificates
        }
        verifier = ReceiptVerifier(configuration: .init(trustAnchors: roots, bundleId: bundleId, acceptedEnvironments: accepted))
        sharedSecret = try environment.value(StorekeeperSettings.sharedSecret)
        endpoints = try environment.value(StorekeeperSettings.verifyReceiptURL).map { .under($0) } ?? .apple
        catalog = Catalog.singleApp(bundleId: bundleId, appAppleId: nil, environments: accepted)
    }
}
