import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// What get-customer and my-entitlements share: the catalog their answers are computed with,
/// and the one way from a key to a customer answer.
struct CustomerAnswering {
    /// The settings that describe the catalog, and the store.
    static let variables: [SettingUse] = AppStoreSettings.catalogVariables + [.declared(RuntimeSettings.storeURL)]

    let catalog: Catalog

    init(environment: EnvironmentVariables) throws {
        catalog = try StorekeeperSettings.catalog(in: environment)
    }

    /// With a catalog read otherwise (the dashboard's, which may be empty).
    init(catalog: Catalog) {
        self.catalog = catalog
    }

    /// The customer's answer at `now`; nil when nothing matches the key. `apps`: where an
    /// original transaction id is looked for when no bundleId is asked (the catalog's apps).
    func answer(_ key: CustomerLookup.Key, bundleId: String? = nil, historyLimit: Int = CustomerAnswer.defaultHistoryLimit,
                apps: [String]? = nil, store: any KeyValueStore, now: Date) throws -> CustomerAnswer? {
        let apps = bundleId.map { [$0] } ?? apps ?? catalog.apps.map(\.bundleId)
        guard var source = try CustomerLookup(store: store).source(of: key, apps: apps) else { return nil }
        source.bundleId = bundleId
        source.historyLimit = historyLimit
        return CustomerAnswer(of: source, catalog: catalog, now: now.millisecondsSince1970)
    }
}
