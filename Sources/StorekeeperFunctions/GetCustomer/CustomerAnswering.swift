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

    /// The customer's answer at `now`; nil when nothing matches the key.
    func answer(_ key: CustomerLookup.Key, bundleId: String? = nil, historyLimit: Int = CustomerAnswer.defaultHistoryLimit,
                store: any KeyValueStore, now: Date) throws -> CustomerAnswer? {
        let apps = bundleId.map { [$0] } ?? catalog.apps.map(\.bundleId)
        guard var source = try CustomerLookup(store: store).source(of: key, apps: apps) else { return nil }
        source.bundleId = bundleId
        source.historyLimit = historyLimit
        return CustomerAnswer(of: source, catalog: catalog, now: now.millisecondsSince1970)
    }
}
