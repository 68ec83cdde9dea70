/// What the metrics are kept per: one app in one environment. Each has records of its own
/// (`StoreKeys.metricsShard`), so no counter shares a Redis Cluster slot with every record and
/// two apps never contend.
public struct MetricsShardID: Hashable, Sendable, Comparable {
    /// Spelling of an app or environment an event does not name.
    public static let unknown = "unknown"

    public var app: String
    public var environment: String

    public init(app: String?, environment: String?) {
        self.app = app.flatMap { $0.isEmpty ? nil : $0 } ?? Self.unknown
        self.environment = environment.flatMap { $0.isEmpty ? nil : $0 } ?? Self.unknown
    }

    /// `<app>/<environment>`, as the set of shards (`StoreKeys.metricsShards`) holds it.
    public var member: String { app + "/" + environment }

    public init?(member: String) {
        guard let slash = member.lastIndex(of: "/") else { return nil }
        self.init(app: String(member[..<slash]), environment: String(member[member.index(after: slash)...]))
    }

    public static func < (lhs: MetricsShardID, rhs: MetricsShardID) -> Bool {
        (lhs.app, lhs.environment) < (rhs.app, rhs.environment)
    }
}
