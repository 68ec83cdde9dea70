import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// The `APPSTORE_*` settings and the catalog every App Store function shares, read once at
/// start and checked before the first request, so a mistake is exit 78 at start-up rather than a
/// wrong answer later.
struct AppStoreSettings {
    /// What a function that verifies signed data lists in its descriptor.
    static let variables: [SettingUse] = [.declared(StorekeeperSettings.rootCertificates)] + catalogVariables + [
        .declared(StorekeeperSettings.onlineChecks), .declared(RuntimeSettings.caBundle), .declared(RuntimeSettings.storeURL),
    ]

    /// What a function that reads the catalog lists: the file, or the variables that
    /// describe one app without it.
    static let catalogVariables: [SettingUse] = [
        .declared(StorekeeperSettings.catalog), .declared(StorekeeperSettings.bundleId),
        .declared(StorekeeperSettings.appAppleId), .declared(StorekeeperSettings.acceptedEnvironments),
    ]

    /// The apps, products and entitlements (STOREKEEPER_CATALOG, or the one app of the
    /// APPSTORE_* variables).
    let catalog: Catalog
    let verifierConfiguration: SignedDataVerifier.Configuration
    let onlineChecks: OnlineCheckPolicy

    init(environment: EnvironmentVariables) throws {
        try self.init(environment: environment, catalog: StorekeeperSettings.catalog(in: environment))
    }

    /// With the catalog already read.
    init(environment: EnvironmentVariables, catalog: Catalog) throws {
        self.catalog = catalog
        // A catalog file already refuses this, naming the field.
        for app in catalog.apps where app.appAppleId == nil && app.environments.contains(.production) {
            throw FunctionError.configuration("\(StorekeeperSettings.appAppleId.name) is required when Production data is accepted")
        }
        let rootPaths = try environment.required(StorekeeperSettings.rootCertificates)
        // Checked readable now, read when a chain is first verified (see TrustAnchors).
        let roots = TrustAnchors(identity: { try rootPaths.flatMap { try Certificate.fileContents(path: $0) } }) {
            let certificates = try rootPaths.flatMap { try Certificate.load(path: $0) }
            guard !certificates.isEmpty else {
                throw FunctionError.configuration("\(StorekeeperSettings.rootCertificates.name) names no certificate")
            }
            return certificates
        }
        onlineChecks = try environment.required(StorekeeperSettings.onlineChecks)
        verifierConfiguration = SignedDataVerifier.Configuration(trustAnchors: roots, apps: catalog.apps)
    }
}

extension AppStoreSettings {
    /// The verifier with its caches and online checks wired to this process's adapters:
    /// proven chains and OCSP answers are shared through the store, OCSP goes over HTTP.
    ///
    /// When Xcode or LocalTesting data is accepted, this says so in the log as the function
    /// starts, so a test configuration that reached production does not go unnoticed.
    func makeVerifier(adapters: any FunctionAdapters, log: Logger) -> SignedDataVerifier {
        let unsigned = verifierConfiguration.acceptedEnvironments.intersection(SignedDataVerifier.unsignedEnvironments)
        if !unsigned.isEmpty {
            // Data of these environments is not signed by Apple: its signature is not checked,
            // which must never be so in production.
            log.warning("unsigned_environment_accepted",
                        ["variable": catalog.productsImplied ? StorekeeperSettings.acceptedEnvironments.name : StorekeeperSettings.catalog.name,
                         "environments": unsigned.map(\.rawValue).sorted().joined(separator: ",")])
        }
        return verifier(adapters: adapters)
    }

    /// The webhook's verification, deduplication and queue, shared by receive-notification
    /// and recover-notifications. It takes only Apple-signed data, whatever
    /// APPSTORE_ENVIRONMENT lists, so it needs no warning.
    func makeNotificationInbox(adapters: any FunctionAdapters) -> NotificationInbox {
        NotificationInbox(verifier: verifier(adapters: adapters), store: adapters.selfOpeningStore)
    }

    private func verifier(adapters: any FunctionAdapters) -> SignedDataVerifier {
        SignedDataVerifier(
            configuration: verifierConfiguration,
            chainStore: adapters.selfOpeningStore,
            revocation: RevocationChecker(policy: onlineChecks, http: { try adapters.http() }, store: adapters.selfOpeningStore))
    }
}
