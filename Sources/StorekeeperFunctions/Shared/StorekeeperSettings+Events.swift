import FunctionRuntime
import StorekeeperCore

/// The event log's settings (issue 15), and the catalog the events' customer state is computed with.
extension StorekeeperSettings {
    static let eventRetentionDays = Setting<Int>(
        "STOREKEEPER_EVENT_RETENTION_DAYS", .optional, default: String(EventLog.defaultRetentionDays),
        help: "how many days the event log keeps an event (90; 1 to 3650): deliver-events trims older ones, list-events says so"
    ) { text throws(SettingProblem) in
        guard let days = Int(text), (1...3650).contains(days) else { throw SettingProblem("must be a whole number of days from 1 to 3650") }
        return days
    }

    /// What a function that records or relays events lists, besides the store.
    static let eventCatalogVariables: [SettingUse] = [
        .declared(catalog), .optional(bundleId, "without a catalog, the app the events' customer state is read for"),
        .declared(appAppleId), .declared(acceptedEnvironments),
    ]

    /// The catalog an event's customer state is computed with: the catalog file, else the one
    /// app of APPSTORE_BUNDLE_ID, else none (every product its own entitlement, as records say).
    static func eventCatalog(in environment: EnvironmentVariables) throws -> Catalog {
        if environment.isSet(catalog) || environment.isSet(bundleId) { return try Self.catalog(in: environment) }
        return Catalog(apps: [], entitlements: [:], products: [:], productsImplied: true)
    }
}
