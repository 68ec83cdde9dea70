/// The dashboard's page for one view (an app or all, one environment), built from a
/// `MetricsReading`: its cost grows with the days shown and the apps, never the customers.
public struct DashboardPage: Sendable {
    public var reading: MetricsReading
    /// nil: every app.
    public var app: String?
    public var environment: String
    /// Past this long without a notification the pipeline shows a red band.
    public var quietSeconds: Int64
    /// Notifications received per day by type over the days shown (`NotificationDays.read`
    /// of `shardIDs`); nil: not read, the pipeline shows the totals only.
    public var notificationDays: NotificationDays?
    public static let days = 90

    public init(reading: MetricsReading, app: String?, environment: String, quietSeconds: Int64,
                notificationDays: NotificationDays? = nil) {
        self.reading = reading
        self.app = app
        self.environment = environment
        self.quietSeconds = quietSeconds
        self.notificationDays = notificationDays
    }

    /// The shards of the view: what `NotificationDays.read` is given.
    public var shardIDs: [MetricsShardID] {
        shards.map(\.id)
    }

    var shards: [MetricsReading.Shard] {
        reading.shards.filter { $0.id.environment == environment && (app == nil || $0.id.app == app) }
    }

    public func html() -> String {
        let scope = "\(app ?? "all apps"), \(environment)"
        let body = "<h1>Storekeeper: \(HTMLEscaping.escape(scope))</h1>"
            + "<p>As of \(HTMLEscaping.escape(UTCTimestamp.format(milliseconds: reading.now))). "
            + "Views: <a href=\"/dashboard?environment=Production\">Production</a> · "
            + "<a href=\"/dashboard?environment=Sandbox\">Sandbox</a>\(appLinks())</p>"
            + DashboardCustomer.lookupForm(environment: environment)
            + now() + overTime() + pipeline()
        return DashboardHTML.document(title: "Storekeeper dashboard", body: body)
    }

    private func appLinks() -> String {
        let apps = Set(reading.shards.map(\.id.app)).sorted()
        return apps.map { name in
            " · <a href=\"/dashboard?app=\(HTMLEscaping.escape(PercentEncoding.encode(name)))&amp;environment="
                + "\(HTMLEscaping.escape(PercentEncoding.encode(environment)))\">\(HTMLEscaping.escape(name))</a>"
        }.joined()
    }

    private func now() -> String {
        var current = MetricsCurrent()
        for shard in shards {
            guard let figures = shard.figures?.current else { continue }
            current.products.merge(figures.products, uniquingKeysWith: +)
            current.statuses.merge(figures.statuses, uniquingKeysWith: +)
            current.monthlyMilliunits.merge(figures.monthlyMilliunits, uniquingKeysWith: +)
            for (entitlement, statuses) in figures.entitlements {
                current.entitlements[entitlement, default: [:]].merge(statuses, uniquingKeysWith: +)
            }
        }
        let entitlements = current.entitlements.map { ($0.key, $0.value.values.reduce(0, +)) }
        return "<h2>Now</h2><p>Active subscriptions: <strong>\(current.active)</strong></p>"
            + DashboardHTML.table(("Status", "Subscriptions"), sorted(current.statuses.map { ($0.key, $0.value) }))
            + DashboardHTML.table(("Product", "Active"), sorted(current.products.map { ($0.key, $0.value) }))
            + DashboardHTML.table(("Entitlement", "Subscriptions"), sorted(entitlements))
            + "<h3>Estimated monthly recurring revenue</h3><p>From the stored prices, each period normalised to a month, "
            + "before Apple's commission and taxes: proceeds are Apple's business.</p>"
            + DashboardHTML.table(("Currency", "Per month"), current.monthlyMilliunits.sorted { $0.key < $1.key }
                .map { ($0.key, Self.amount(milliunits: $0.value)) })
    }

    private func sorted(_ rows: [(String, Int)]) -> [(String, String)] {
        rows.sorted { $0.0 < $1.0 }.map { ($0.0, String($0.1)) }
    }

    /// 12345 milliunits → "12.35"; no locale.
    public static func amount(milliunits: Int64) -> String {
        let cents = (milliunits + (milliunits >= 0 ? 5 : -5)) / 10
        let sign = cents < 0 ? "-" : ""
        let magnitude = abs(cents)
        let fraction = magnitude % 100
        return "\(sign)\(magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
