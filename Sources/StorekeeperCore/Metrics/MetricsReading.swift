/// Everything the metrics and the dashboard show, read from the store at once: per app and
/// environment the aggregator's shard and the notification counts, per app the reconciliation
/// corrections, and the pipeline's state (queue, dead letters, webhook endpoints). Its cost
/// grows with the apps, environments and endpoints, never with the customers.
public struct MetricsReading: Sendable {
    public struct Shard: Sendable {
        public var id: MetricsShardID
        /// nil until an event of the shard was counted.
        public var figures: MetricsShard?
        public var notifications: NotificationCounts?
    }

    /// When it was read (ms, the function's clock).
    public var now: Int64
    public var shards: [Shard]
    /// Bundle id → corrections since counting began.
    public var corrections: [String: CorrectionCounts]
    public var queueDepth: Int
    /// When the oldest job still pending in the notification queue (ready, backing off or
    /// leased) was enqueued: ms by the store's clock, which is the real wall time. Nil when
    /// the queue is empty.
    public var oldestPendingEnqueuedAt: Int64?
    /// The real wall time of the reading (ms). The queue's times are the store's and never
    /// pinned, so the oldest job's age is measured against this, not against `now`.
    public var realNow: Int64
    public var deadLetters: Int
    public var lastDeadLetter: DeadLetterNote?
    public var webhooks: [WebhookEndpointStatus]
    /// Endpoint name → delivery attempts by result since counting began, for every endpoint of `webhooks`.
    public var webhookDeliveries: [String: WebhookDeliveryCounts]
    /// recover-notifications' last runs (at most 30, oldest first) by app and environment.
    public var recoveryRuns: [MetricsShardID: [RecoveryRun]]
    /// The event log's last sequence and how far the aggregator has counted it.
    public var lastSequence: Int64
    public var countedSequence: Int64

    /// The oldest pending job's age in seconds; 0 when the queue is empty, so the series never
    /// vanishes and an alert on it stays a plain comparison.
    public var oldestJobAgeSeconds: Double {
        oldestPendingEnqueuedAt.map { Double(max(0, realNow - $0)) / 1000 } ?? 0
    }

    /// Reads it all; `webhooks` names the endpoints (name, host) to report. `realNow` (ms, the
    /// real wall time) is `now` unless given.
    public static func read(store: any KeyValueStore, webhooks: [(name: String, host: String)], now: Int64,
                            realNow: Int64? = nil) throws -> MetricsReading {
        let ids = try store.setMembers(StoreKeys.metricsShards).compactMap(MetricsShardID.init(member:)).sorted()
        var shards: [Shard] = []
        var corrections: [String: CorrectionCounts] = [:]
        for id in ids {
            shards.append(Shard(id: id, figures: try store.get(StoreKeys.metricsShard(id), as: MetricsShard.self),
                                notifications: try store.get(StoreKeys.metricsNotifications(id), as: NotificationCounts.self)))
            if corrections[id.app] == nil, let counts = try store.get(StoreKeys.metricsCorrections(bundleId: id.app), as: CorrectionCounts.self) {
                corrections[id.app] = counts
            }
        }
        return MetricsReading(
            now: now, shards: shards, corrections: corrections,
            queueDepth: try store.pendingCount(in: StoreKeys.notificationQueue),
            oldestPendingEnqueuedAt: try store.oldestPendingEnqueuedAt(in: StoreKeys.notificationQueue),
            realNow: realNow ?? now,
            deadLetters: try store.deadLetters(in: StoreKeys.notificationQueue).count,
            lastDeadLetter: try store.get(StoreKeys.metricsDeadLetter, as: DeadLetterNote.self),
            webhooks: try webhooks.map { try WebhookEndpointStatus.read(name: $0.name, host: $0.host, store: store, now: now) },
            webhookDeliveries: try Dictionary(webhooks.map { ($0.name, try WebhookDeliveryCounts.read(endpoint: $0.name, store: store)) },
                                              uniquingKeysWith: { first, _ in first }),
            recoveryRuns: try RecoveryRunHistory.readAll(store: store),
            lastSequence: try EventLog(store: store).bounds().last,
            countedSequence: try MetricsAggregator(store: store).cursor())
    }
}

extension MetricsShard {
    /// One day of the "over time" view.
    public struct DayFigures: Sendable, Equatable {
        public var day: String
        /// `MetricsFlow` raw value → count that day.
        public var flows: [String: Int]
        /// Active subscriptions at the end of the day: today's, less the net changes since.
        public var active: Int
    }

    /// The last `count` days up to the day of `now` (ms), oldest first, one entry a day.
    public func daily(count: Int, now: Int64) -> [DayFigures] {
        var figures: [DayFigures] = []
        var active = current.active
        for back in 0..<max(0, min(count, Self.retainedDays)) {
            let day = MetricsDay.of(now - Int64(back) * MetricsDay.milliseconds)
            let flows = days[day] ?? [:]
            figures.append(DayFigures(day: day, flows: flows, active: active))
            active -= flows[MetricsFlow.activeChange.rawValue] ?? 0
        }
        return figures.reversed()
    }
}
