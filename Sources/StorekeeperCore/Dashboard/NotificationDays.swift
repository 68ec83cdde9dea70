/// Notifications received per day by type, for the days the dashboard shows, summed over the
/// view's shards: the worker's daily counts (`StoreKeys.metricsNotificationDay`), one read a
/// day and shard, so the cost grows with the days shown and the apps, never the customers.
public struct NotificationDays: Sendable, Equatable {
    /// Oldest first, one entry a day up to the day of `now`: the day, and type → count.
    public var days: [(day: String, types: [String: Int])]

    public init(days: [(day: String, types: [String: Int])]) {
        self.days = days
    }

    public static func == (lhs: NotificationDays, rhs: NotificationDays) -> Bool {
        lhs.days.map(\.day) == rhs.days.map(\.day) && lhs.days.map(\.types) == rhs.days.map(\.types)
    }

    /// The last `count` days of `shards` up to the day of `now` (ms).
    public static func read(store: any KeyValueStore, shards: [MetricsShardID], count: Int, now: Int64) throws(StoreError) -> NotificationDays {
        var days: [(day: String, types: [String: Int])] = []
        for back in (0..<max(0, count)).reversed() {
            let day = MetricsDay.of(now - Int64(back) * MetricsDay.milliseconds)
            var types: [String: Int] = [:]
            for shard in shards {
                guard let counts = try store.get(StoreKeys.metricsNotificationDay(shard, day: day), as: NotificationCounts.self) else { continue }
                types.merge(counts.types, uniquingKeysWith: +)
            }
            days.append((day, types))
        }
        return NotificationDays(days: days)
    }

    /// Every type received on any of the days, sorted.
    public var types: [String] {
        Set(days.flatMap(\.types.keys)).sorted()
    }
}
