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

    /// Counts a notification once the worker has acknowledged it. The queue takes a
    /// notificationUUID once (the record's key guards it for 180 days) and acknowledges a job
    /// once (`acknowledge` is false for a lost lease), so counting after that acknowledgement
    /// counts each notification at most once, and a redelivery, a duplicate from
    /// recover-notifications or a retry counts nothing again. A process killed between the
    /// acknowledgement and this write leaves that one notification uncounted.
    public func received(_ notification: StoredNotification) throws(StoreError) {
        let payload = notification.payload
        let shard = MetricsShardID(
            app: payload.data?.bundleId ?? payload.summary?.bundleId ?? payload.appData?.bundleId
                ?? payload.externalPurchaseToken?.bundleId,
            environment: payload.data?.rawEnvironment ?? payload.summary?.rawEnvironment ?? payload.appData?.rawEnvironment)
        let type = payload.rawNotificationType ?? "UNKNOWN"
        let day = MetricsDay.of(notification.receivedAt)
        try count(type, at: StoreKeys.metricsNotificationDay(shard, day: day), expiresIn: Self.dayExpiry, receivedAt: nil)
        try count(type, at: StoreKeys.metricsNotifications(shard), expiresIn: nil, receivedAt: notification.receivedAt) { () throws(StoreError) in
            // The shard is listed before its first count is written (once, not per notification).
            try store.addToSet(StoreKeys.metricsShards, shard.member)
        }
    }

    private func count(_ type: String, at key: String, expiresIn: Duration?, receivedAt: Int64?,
                       first: () throws(StoreError) -> Void = {}) throws(StoreError) {
        try store.update(key, as: NotificationCounts.self, expiresIn: expiresIn, attempts: Self.attempts) {
            (current) throws(StoreError) -> StoreUpdate<NotificationCounts, Void> in
            if current == nil { try first() }
            var counts = current ?? NotificationCounts()
            counts.types[type, default: 0] += 1
            if let receivedAt, receivedAt >= counts.lastReceivedAt ?? .min {
                counts.lastReceivedAt = receivedAt
                counts.lastType = type
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
