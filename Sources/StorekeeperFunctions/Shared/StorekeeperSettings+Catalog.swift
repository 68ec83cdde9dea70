import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// The catalog: the apps, products and entitlements of the deployment, from the file
/// `STOREKEEPER_CATALOG` names or, without it, the one app the `APPSTORE_*` variables describe.
extension StorekeeperSettings {
    /// A catalog is a page of JSON; anything near this size is the wrong file.
    static let maximumCatalogBytes = 1 << 20

    static let catalog = Setting<Catalog>(
        "STOREKEEPER_CATALOG", .optional,
        help: "path to the catalog file (JSON: apps and their retention rules, entitlements, products, webhooks; see \"The catalog\"), read and checked at start (a mistake is exit 78 naming its field); without it APPSTORE_BUNDLE_ID, APPSTORE_APP_APPLE_ID and APPSTORE_ENVIRONMENT describe one app whose products each grant an entitlement named after themselves"
    ) { path throws(SettingProblem) in try readCatalog(path) }

    /// The variables a catalog replaces; setting one beside it is a mistake (which would win?).
    static let replacedByCatalog = [bundleId.name, appAppleId.name, acceptedEnvironments.name]

    /// The deployment's catalog, read once at start: the file, or the one-app catalog of the
    /// `APPSTORE_*` variables. Any mistake is exit 78 naming the variable or the field.
    static func catalog(in environment: EnvironmentVariables) throws -> Catalog {
        if let catalog = try environment.value(Self.catalog) {
            let alsoSet = replacedByCatalog.filter { environment.optional($0) != nil }
            guard alsoSet.isEmpty else {
                throw FunctionError.configuration(
                    "\(alsoSet.joined(separator: ", ")) set beside \(Self.catalog.name), whose apps replace them: unset \(alsoSet.count == 1 ? "it" : "them")")
            }
            return catalog
        }
        // APPSTORE_APP_APPLE_ID is required only to verify Production data (AppStoreSettings):
        // the App Store Server API and the store do without it.
        let bundleId = try environment.required(bundleId)
        let accepted = try environment.required(acceptedEnvironments)
        let appAppleId = try environment.value(appAppleId)
        return Catalog.singleApp(bundleId: bundleId, appAppleId: appAppleId, environments: accepted)
    }

    /// For a function that reads the store only: the catalog file when STOREKEEPER_CATALOG is
    /// set (checked like everywhere), nil otherwise (it then answers what the records say).
    static func catalogIfConfigured(in environment: EnvironmentVariables) throws -> Catalog? {
        environment.isSet(Self.catalog) ? try catalog(in: environment) : nil
    }

    static func readCatalog(_ path: String) throws(SettingProblem) -> Catalog {
        guard let data = FileManager.default.contents(atPath: path) else { throw SettingProblem("cannot read \(path)") }
        guard data.count <= maximumCatalogBytes else {
            throw SettingProblem("\(path) is larger than \(maximumCatalogBytes) bytes: not a catalog")
        }
        do {
            return try Catalog.parse(Array(data))
        } catch {
            throw SettingProblem("\(path): \(error)")
        }
    }
}
