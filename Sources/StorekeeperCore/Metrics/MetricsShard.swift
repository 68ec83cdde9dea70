/// Everything the metrics keep of one app in one environment, in one record
/// (`StoreKeys.metricsShard`) written by one compare-and-set per batch of events: how far in
/// the event log it has counted (`sequence`), the current figures, the totals and the daily
/// buckets, and the subscription states the batch changed (`pending`).
///
/// `pending` makes the per-subscription states (kept under keys of their own, so this record
/// does not grow with the customers) move with the counts: the write that counts a batch
/// carries the states it leaves, and every run copies a record's pending states to their keys
/// before it reads any (`MetricsAggregator`), then clears them. A run killed between the two
/// leaves them here; the next run copies them first. A copy never replaces a later state (by
/// `sequence`).
public struct MetricsShard: StoreRecord, Sendable, Equatable {
    /// Days of buckets kept: the dashboard shows 90.
    public static let retainedDays = 92

    public var app: String
    public var environment: String
    /// The last event-log sequence counted here (every event up to it is in these figures).
    public var sequence: Int64 = 0
    public var current = MetricsCurrent()
    /// `MetricsFlow` raw value → count since counting began.
    public var totals: [String: Int] = [:]
    /// `yyyy-mm-dd` (UTC, of the event's `occurredAt`) → `MetricsFlow` raw value → count.
    public var days: [String: [String: Int]] = [:]
    /// Original transaction id → the state this shard's last write left it in.
    public var pending: [String: MetricsSubscriptionRecord] = [:]

    public init(_ id: MetricsShardID) {
        app = id.app
        environment = id.environment
    }

    public var id: MetricsShardID { MetricsShardID(app: app, environment: environment) }

    mutating func count(_ flow: MetricsFlow, by delta: Int = 1, on day: String) {
        guard delta != 0 else { return }
        MetricsCurrent.bump(&totals, flow.rawValue, by: delta)
        var bucket = days[day] ?? [:]
        MetricsCurrent.bump(&bucket, flow.rawValue, by: delta)
        days[day] = bucket.isEmpty ? nil : bucket
    }

    /// Forgets the buckets older than `retainedDays` before `now` (ms); the totals stay.
    mutating func prune(now: Int64) {
        let oldest = MetricsDay.of(now - Int64(Self.retainedDays - 1) * MetricsDay.milliseconds)
        days = days.filter { $0.key >= oldest }
    }
}

/// A UTC calendar day, `yyyy-mm-dd` (sorts as it runs).
public enum MetricsDay {
    public static let milliseconds: Int64 = 86_400_000

    public static func of(_ milliseconds: Int64) -> String {
        String(UTCTimestamp.format(milliseconds: milliseconds).prefix(10))
    }
}
