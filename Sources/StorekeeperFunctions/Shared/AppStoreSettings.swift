import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// The `APPSTORE_*` settings every App Store function shares, read once from the environment
/// and checked before the first request, so a mistake is exit 78 at start-up rather than a
/// wrong answer later.
struct AppStoreSettings {
    static let variables: [EnvironmentVariableHelp] = [
        EnvironmentVariableHelp(name: "APPSTORE_ROOT_CERTS", required: true,
            meaning: "comma-separated files or folders of trusted root certificates (DER or PEM): Apple's roots from `make apple-roots`, or the test PKI's root"),
        EnvironmentVariableHelp(name: "APPSTORE_BUNDLE_ID", required: true,
            meaning: "the app's bundle id; signed data for any other app is INVALID_APP_IDENTIFIER"),
        EnvironmentVariableHelp(name: "APPSTORE_APP_APPLE_ID", required: false,
            meaning: "the numeric App Apple ID; required when Production is accepted, checked on Production data"),
        EnvironmentVariableHelp(name: "APPSTORE_ENVIRONMENT", required: false,
            meaning: "comma-separated accepted environments: Production, Sandbox, Xcode, LocalTesting (default Production,Sandbox: App Review buys in the sandbox)"),
        EnvironmentVariableHelp(name: "APPSTORE_ONLINE_CHECKS", required: false,
            meaning: "OCSP revocation checks: off (validate at signedDate), soft (default: an unreachable responder is accepted, using a good answer under 24 h old if known), hard (unreachable is a retryable failure)"),
        EnvironmentVariableHelp(name: "STOREKEEPER_CA_BUNDLE", required: false,
            meaning: "CA file for outgoing HTTPS (tests); the system's CAs otherwise"),
        EnvironmentVariableHelp(name: StoreLocation.variable, required: false,
            meaning: "where state and caches live: sqlite:<path> (default sqlite:var/storekeeper.db) or redis://[:password@]host:port/db"),
    ]

    let verifierConfiguration: SignedDataVerifier.Configuration
    let onlineChecks: OnlineCheckPolicy

    init(environment: EnvironmentVariables) throws {
        let bundleId = try environment.required("APPSTORE_BUNDLE_ID")

        let accepted = try Self.acceptedEnvironments(environment)

        var appAppleId: Int64?
        if let text = environment.optional("APPSTORE_APP_APPLE_ID") {
            guard let value = Int64(text), value > 0 else {
                throw FunctionError.configuration("APPSTORE_APP_APPLE_ID must be the numeric App Apple ID")
            }
            appAppleId = value
        } else if accepted.contains(.production) {
            throw FunctionError.configuration("APPSTORE_APP_APPLE_ID is required when Production data is accepted")
        }

        let rootPaths = try environment.required("APPSTORE_ROOT_CERTS")
            .split(separator: ",")
            .map { $0.trimmedOfSpaces }
            .filter { !$0.isEmpty }
        guard !rootPaths.isEmpty else {
            throw FunctionError.configuration("APPSTORE_ROOT_CERTS names no certificate")
        }
        // Checked now, read when a chain is first verified (see TrustAnchors).
        for path in rootPaths where !FileManager.default.isReadableFile(atPath: path) {
            throw FunctionError.configuration("APPSTORE_ROOT_CERTS: cannot read \(path)")
        }
        let roots = TrustAnchors(identity: { try rootPaths.flatMap { try Certificate.fileContents(path: $0) } }) {
            let certificates = try rootPaths.flatMap { try Certificate.load(path: $0) }
            guard !certificates.isEmpty else { throw FunctionError.configuration("APPSTORE_ROOT_CERTS names no certificate") }
            return certificates
        }

        let policyName = environment.optional("APPSTORE_ONLINE_CHECKS") ?? OnlineCheckPolicy.soft.rawValue
        guard let policy = OnlineCheckPolicy(rawValue: policyName) else {
            throw FunctionError.configuration("APPSTORE_ONLINE_CHECKS must be off, soft or hard")
        }
        onlineChecks = policy

        verifierConfiguration = SignedDataVerifier.Configuration(
            trustAnchors: roots,
            bundleId: bundleId,
            appAppleId: appAppleId,
            acceptedEnvironments: accepted
        )
    }
}

extension AppStoreSettings {
    /// `APPSTORE_ENVIRONMENT`: the accepted environments (default Production,Sandbox), each
    /// one Apple knows; anything else is a configuration error.
    static func acceptedEnvironments(_ environment: EnvironmentVariables) throws -> Set<Environment> {
        let names = Set(
            (environment.optional("APPSTORE_ENVIRONMENT") ?? "Production,Sandbox")
                .split(separator: ",")
                .map { $0.trimmedOfSpaces }
                .filter { !$0.isEmpty }
        )
        let unknown = names.filter { Environment(rawValue: $0) == nil }
        guard unknown.isEmpty, !names.isEmpty else {
            throw FunctionError.configuration("APPSTORE_ENVIRONMENT names unknown environments: \(unknown.sorted().joined(separator: ", ")); use Production, Sandbox, Xcode, LocalTesting")
        }
        return Set(names.compactMap(Environment.init(rawValue:)))
    }

    /// The verifier with its caches and online checks wired to this process's adapters:
    /// proven chains and OCSP answers are shared through the store, OCSP goes over HTTP.
    ///
    /// When Xcode or LocalTesting data is accepted, this says so in the log as the function
    /// starts, so a test configuration that reached production does not go unnoticed.
    func makeVerifier(adapters: Adapters, log: Logger) -> SignedDataVerifier {
        let unsigned = verifierConfiguration.acceptedEnvironments.intersection(SignedDataVerifier.unsignedEnvironments)
        if !unsigned.isEmpty {
            log.warning("APPSTORE_ENVIRONMENT accepts data Apple does not sign; its signature is not checked (never in production)",
                        ["environments": unsigned.map(\.rawValue).sorted().joined(separator: ",")])
        }
        return verifier(adapters: adapters)
    }

    /// The webhook's verification, deduplication and queue, shared by receive-notification
    /// and recover-notifications. It takes only Apple-signed data, whatever
    /// APPSTORE_ENVIRONMENT lists, so it needs no warning.
    func makeNotificationInbox(adapters: Adapters) -> NotificationInbox {
        NotificationInbox(verifier: verifier(adapters: adapters), store: { try adapters.store() })
    }

    private func verifier(adapters: Adapters) -> SignedDataVerifier {
        let store = { try adapters.store() }
        return SignedDataVerifier(
            configuration: verifierConfiguration,
            chainStore: store,
            revocation: RevocationChecker(policy: onlineChecks, http: { try adapters.http() }, store: store))
    }
}

extension Substring {
    /// Settings are comma-separated lists typed by people: " Sandbox" means "Sandbox".
    var trimmedOfSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
