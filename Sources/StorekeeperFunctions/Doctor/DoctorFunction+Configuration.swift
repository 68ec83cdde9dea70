import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// The checks of what the environment names beyond roots and keys: the catalog and the tokens.
/// Each reads its settings through the declarations every other function reads them with, so
/// a mistake the doctor reports is the mistake those functions would stop on.
extension DoctorFunction {
    // MARK: Catalog

    func catalogCheck() -> DoctorCheck {
        let name = "catalog"
        let catalog: Catalog
        do {
            catalog = try StorekeeperSettings.catalog(in: environment)
        } catch {
            return .problem(name, Self.message(error))
        }
        // As AppStoreSettings refuses at start: Production data is checked against the App Apple ID.
        for app in catalog.apps where app.appAppleId == nil && app.environments.contains(.production) {
            return .problem(name, "\(app.bundleId) accepts Production data but has no App Apple ID (\(StorekeeperSettings.appAppleId.name))")
        }
        let source = environment.isSet(StorekeeperSettings.catalog)
            ? "\(StorekeeperSettings.catalog.name) \(environment.optional(StorekeeperSettings.catalog.name) ?? "")"
            : "\(StorekeeperSettings.bundleId.name) and the APPSTORE_* variables"
        let apps = catalog.apps.map { "\($0.bundleId) (\($0.environments.map(\.rawValue).sorted().joined(separator: ", ")))" }
        let products = catalog.productsImplied ? "each product grants an entitlement of its name" : "\(catalog.products.count) products"
        return .ok(name, "from \(source): \(catalog.apps.count) app\(catalog.apps.count == 1 ? "" : "s"), \(apps.joined(separator: ", ")); \(products)")
    }

    // MARK: Tokens

    func tokensCheck() -> DoctorCheck {
        let name = "tokens"
        let admin = RuntimeSettings.adminToken.name
        let tokens: [NamedToken]?
        do {
            tokens = try NamedToken.configured(in: environment)
        } catch {
            return .problem(name, error.message)
        }
        guard let tokens else {
            return .warning(name, "neither \(admin) nor \(RuntimeSettings.tokens.name) is set: every internal function refuses HTTP callers (pipes and cron are unaffected)")
        }
        if let value = environment.optional(admin), value.utf8.count < NamedToken.shortestAccepted {
            return .problem(name, "\(admin) is \(value.utf8.count) characters; use at least \(NamedToken.shortestAccepted) (a short bearer token is guessable)")
        }
        let names = tokens.map { "\($0.name) (\($0.scope.rawValue))" }
        return .ok(name, "\(tokens.count) token\(tokens.count == 1 ? "" : "s"): \(names.joined(separator: ", "))")
    }

    /// A configuration error's own words (they name the variable, never a secret's value).
    static func message(_ error: any Error) -> String {
        if let error = error as? FunctionError { return error.message }
        if let error = error as? any CodedError { return error.reason }
        return String(describing: error)
    }
}
