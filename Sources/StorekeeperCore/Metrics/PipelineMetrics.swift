/// The small writes that keep the pipeline figures the event log does not hold: notifications
/// received (by the worker), the last dead letter's error (by the worker), reconciliation
/// corrections (by reconcile). Each is one or two compare-and-sets on keys of the app's own.
public struct PipelineMetrics {
    /// Rounds against another writer of the same key before giving up (retryable).
    static let attempts = 32
    static let dayExpiry: Duration = .seconds(Int64(MetricsShard.retainedDays) * 86_400)

    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    /// Counts notifications once the worker has acknowledged them. The queue takes a
    /// notificationUUID once (the record's key guards it for 180 days) and acknowledges a job
    /// once (`acknowledge` is false for a lost lease), so counting after that acknowledgement
    /// counts each notification at most once, and a redelivery, a duplicate from
    /// recover-notifications or a retry counts nothing again. The worker counts in batches
    /// (`ReceivedTally`): one compare-and-set per app, environment and day for the batch, not
    /// two per notification on keys every notification of the app shares. A process killed
    /// between an acknowledgement and its batch's write leaves that batch uncounted.
    public func received(_ tally: ReceivedTally) throws(StoreError) {
        for (shard, counts) in tally.totals {
            try count(counts, at: StoreKeys.metricsNotifications(shard), expiresIn: nil) { () throws(StoreError) in
                // The shard is listed before its first count is written (once, not per notification).
                try store.addToSet(StoreKeys.metricsShards, shard.member)
            }
        }
        for (day, counts) in tally.days {
            try count(counts, at: StoreKeys.metricsNotificationDay(day.shard, day: day.day), expiresIn: Self.dayExpiry)
        }
    }

    private func count(_ added: NotificationCounts, at key: String, expiresIn: Duration?,
                       first: () throws(StoreError) -> Void = {}) throws(StoreError) {
        try store.update(key, as: NotificationCounts.self, expiresIn: expiresIn, attempts: Self.attempts) {
            (current) throws(StoreError) -> StoreUpdate<NotificationCounts, Void> in
            if current == nil { try first() }
            var counts = current ?? NotificationCounts()
            counts.types.merge(added.types, uniquingKeysWith: +)
            if let receivedAt = added.lastReceivedAt, receivedAt >= counts.lastReceivedAt ?? .min {
                counts.lastReceivedAt = receivedAt
                counts.lastType = added.lastType
            }
            return .write(counts, ())
        }
    }

    /// The worker's last failure of a notification on its last attempt.
    public func deadLettered(_ notificationUUID: String, error: any Error, at now: Int64) throws(StoreError) {
        let code = (error as? any CodedError)?.code ?? "error"
        try store.set(StoreKeys.metricsDeadLetter, record: DeadLetterNote(notificationUUID: notificationUUID, code: code, at: now),
                      expiresIn: nil)
    }

    /// Counts one correction reconcile made of `bundleId`, on the day of `now` (ms), as it makes
    /// it: a run killed later has counted what it corrected so far.
    public func corrected(kind: String, bundleId: String, at now: Int64) throws(StoreError) {
        for (key, expiry) in [(StoreKeys.metricsCorrectionDay(bundleId: bundleId, day: MetricsDay.of(now)), Self.dayExpiry),
                              (StoreKeys.metricsCorrections(bundleId: bundleId), nil)] {
            try store.update(key, as: CorrectionCounts.self, expiresIn: expiry, attempts: Self.attempts) {
                (current) throws(StoreError) -> StoreUpdate<CorrectionCounts, Void> in
                var counts = current ?? CorrectionCounts()
                counts.kinds[kind, default: 0] += 1
                return .write(counts, ())
            }
        }
    }
}

/// Notifications acknowledged and not yet counted in the store, by app, environment and day.
public struct ReceivedTally {
    /// Acknowledged notifications a worker counts in one write (and at the end of its run).
    public static let batch = 100

    struct Day: Hashable {
        let shard: MetricsShardID
        let day: String
    }

    private(set) var totals: [MetricsShardID: NotificationCounts] = [:]
    private(set) var days: [Day: NotificationCounts] = [:]
    public private(set) var count = 0

    public init() {}

    public mutating func add(_ notification: StoredNotification) {
        let payload = notification.payload
        let shard = MetricsShardID(
            app: payload.data?.bundleId ?? payload.summary?.bundleId ?? payload.appData?.bundleId
                ?? payload.externalPurchaseToken?.bundleId,
            environment: payload.data?.rawEnvironment ?? payload.summary?.rawEnvironment ?? payload.appData?.rawEnvironment)
        let type = payload.rawNotificationType ?? "UNKNOWN"
        days[Day(shard: shard, day: MetricsDay.of(notification.receivedAt)), default: NotificationCounts()].types[type, default: 0] += 1
        var total = totals[shard] ?? NotificationCounts()
        total.types[type, default: 0] += 1
        if notification.receivedAt >= total.lastReceivedAt ?? .min {
            total.lastReceivedAt = notification.receivedAt
            total.lastType = type
        }
        totals[shard] = total
        count += 1
    }
}
