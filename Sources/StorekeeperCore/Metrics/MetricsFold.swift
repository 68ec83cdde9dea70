/// Folding a batch of events into one shard: the part of `MetricsAggregator` that decides
/// what each event counts.
struct MetricsFold {
    /// One event, read once for every shard of the batch.
    struct Item {
        let sequence: Int64
        let day: String
        let flow: MetricsFlow?
        let flowShard: MetricsShardID
        let seen: [MetricsSubscriptionState.Seen]

        init(_ event: MetricsEventView, sequence: Int64) {
            self.sequence = sequence
            day = MetricsDay.of(event.occurredAt)
            flow = MetricsFlow.of(eventType: event.type)
            flowShard = MetricsShardID(app: event.app, environment: event.environment)
            seen = MetricsSubscriptionState.seen(in: event)
        }
    }

    let store: any KeyValueStore

    /// Counts the items after `record.sequence` that concern the shard; `record.pending` then
    /// holds the states of the subscriptions that changed.
    func fold(_ batch: [Item], into record: inout MetricsShard, through last: Int64) throws(StoreError) {
        let id = record.id
        var states: [String: MetricsSubscriptionState] = [:]
        var pending: [String: MetricsSubscriptionRecord] = [:]
        for item in batch where item.sequence > record.sequence {
            if item.flowShard == id, let flow = item.flow { record.count(flow, on: item.day) }
            for seen in item.seen where seen.shard == id {
                var before = states[seen.originalTransactionId]
                if before == nil {
                    before = try store.get(StoreKeys.metricsSubscription(id, originalTransactionId: seen.originalTransactionId),
                                           as: MetricsSubscriptionRecord.self)?.state
                }
                states[seen.originalTransactionId] = seen.state
                guard before != seen.state else { continue }
                record.transition(from: before, to: seen.state, on: item.day)
                pending[seen.originalTransactionId] = MetricsSubscriptionRecord(sequence: item.sequence, state: seen.state)
            }
        }
        record.sequence = last
        record.pending = pending
    }

    /// Writes each state to its subscription's key unless the key holds a later one.
    func copy(_ pending: [String: MetricsSubscriptionRecord], of shard: MetricsShardID) throws(StoreError) {
        for (originalTransactionId, state) in pending {
            let key = StoreKeys.metricsSubscription(shard, originalTransactionId: originalTransactionId)
            try store.update(key, as: MetricsSubscriptionRecord.self, attempts: MetricsAggregator.attempts) {
                (current) throws(StoreError) -> StoreUpdate<MetricsSubscriptionRecord, Void> in
                guard state.sequence > current?.sequence ?? 0 else { return .keep(()) }
                return .write(state, ())
            }
        }
    }
}

extension MetricsShard {
    /// One subscription from its last counted state (nil: never seen) to `after`.
    mutating func transition(from before: MetricsSubscriptionState?, to after: MetricsSubscriptionState, on day: String) {
        if let before { current.add(before, sign: -1) }
        current.add(after, sign: 1)
        let wasLive = before?.live ?? false
        if wasLive != after.live { count(.activeChange, by: after.live ? 1 : -1, on: day) }
        // Churn: a counted subscription (active, in grace or billing retry) that ended.
        if before?.status != nil, after.status == nil { count(.churn, on: day) }
        if before?.trial == true, !after.trial, after.live { count(.trialConversion, on: day) }
    }
}
