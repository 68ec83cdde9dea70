import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// The app and the verification of Apple's signed data.
extension StorekeeperSettings {

    static let bundleId = Setting<String>(
        "APPSTORE_BUNDLE_ID", .requiredUnless(catalog.name), sources: [.environment, .catalogSection("apps")],
        help: "the app's bundle id (letters, digits, hyphens, periods); signed data and receipts for any other app are INVALID_APP_IDENTIFIER"
    ) { text throws(SettingProblem) in
        guard CatalogApp.isValidBundleId(text) else { throw SettingProblem("may hold only letters, digits, hyphens and periods") }
        return text
    }

    static let appAppleId = Setting<Int64>(
        "APPSTORE_APP_APPLE_ID", .optional, sources: [.environment, .catalogSection("apps")],
        help: "the numeric App Apple ID; required when Production is accepted (unless STOREKEEPER_CATALOG is set), checked on Production data"
    ) { text throws(SettingProblem) in
        guard let value = Int64(text), value > 0 else { throw SettingProblem("must be the numeric App Apple ID") }
        return value
    }

    static let acceptedEnvironments = Setting<Set<Environment>>(
        "APPSTORE_ENVIRONMENT", .optional, sources: [.environment, .catalogSection("apps")], default: "Production,Sandbox",
        help: "comma-separated accepted environments: Production, Sandbox, Xcode, LocalTesting (default Production,Sandbox: App Review buys in the sandbox)"
    ) { text throws(SettingProblem) in
        let names = Set(text.split(separator: ",").map { $0.trimmedOfSpaces }.filter { !$0.isEmpty })
        let unknown = names.filter { Environment(rawValue: $0) == nil }
        guard unknown.isEmpty, !names.isEmpty else {
            throw SettingProblem("names unknown environments: \(unknown.sorted().joined(separator: ", ")); use Production, Sandbox, Xcode, LocalTesting")
        }
        return Set(names.compactMap(Environment.init(rawValue:)))
    }

    /// The paths, each checked readable now; the certificates are read when a chain is first verified.
    static let rootCertificates = Setting<[String]>(
        "APPSTORE_ROOT_CERTS", .required,
        help: "comma-separated files or folders of trusted root certificates (DER or PEM): Apple's roots from `make apple-roots`, or the test PKI's root"
    ) { text throws(SettingProblem) in try readablePaths(text) }

    static let onlineChecks = Setting<OnlineCheckPolicy>(
        "APPSTORE_ONLINE_CHECKS", .optional, default: OnlineCheckPolicy.soft.rawValue,
        help: "OCSP revocation checks: off (validate at signedDate), soft (default: an unreachable responder is accepted, using a good answer under 24 h old if known), hard (unreachable is a retryable failure)"
    ) { text throws(SettingProblem) in
        guard let policy = OnlineCheckPolicy(rawValue: text) else { throw SettingProblem("must be off, soft or hard") }
        return policy
    }

    static let appStore: [SettingDeclaration] = [
        catalog.declaration, bundleId.declaration, appAppleId.declaration, acceptedEnvironments.declaration, rootCertificates.declaration,
        onlineChecks.declaration,
    ]

    /// A comma-separated list of files or folders, each readable now.
    static func readablePaths(_ text: String) throws(SettingProblem) -> [String] {
        let paths = text.split(separator: ",").map { $0.trimmedOfSpaces }.filter { !$0.isEmpty }
        guard !paths.isEmpty else { throw SettingProblem("names no certificate") }
        for path in paths where !FileManager.default.isReadableFile(atPath: path) {
            throw SettingProblem("cannot read \(path)")
        }
        return paths
    }
}
