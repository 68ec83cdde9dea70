/// The resumable aggregator: reads the event log from its cursor (`StoreKeys.metricsCursor`)
/// and folds each event into the figures of the app and environment it concerns
/// (`MetricsShard`): counts by type per day, and the current subscriptions from each
/// subscription's state before and after (`MetricsSubscriptionState`).
///
/// Idempotent by event sequence: each shard records the last sequence it counted, in the same
/// compare-and-set that writes its counts, and skips what it has counted; the global cursor
/// only moves after every shard a batch touched is written. A run killed anywhere, or two runs
/// at once, count every event once. The process-notifications worker ends each run with a
/// bounded catch-up, and every metrics request does one, so a scrape finds little to do.
public struct MetricsAggregator {
    /// Events read and folded per round.
    public static let batch = 500
    /// Rounds against another writer of the same shard before giving up (retryable).
    static let attempts = 16

    /// What a catch-up did.
    public struct Progress: Codable, Sendable, Equatable {
        /// Events folded by this call.
        public var events = 0
        /// The cursor after it.
        public var sequence: Int64 = 0
        /// The log's last sequence is counted.
        public var caughtUp = false
    }

    private let store: any KeyValueStore
    private let log: EventLog

    public init(store: any KeyValueStore) {
        self.store = store
        log = EventLog(store: store)
    }

    /// The last event-log sequence counted everywhere.
    public func cursor() throws(StoreError) -> Int64 {
        try store.get(StoreKeys.metricsCursor, as: MetricsCursor.self)?.sequence ?? 0
    }

    /// Folds the events after the cursor, at most `maxEvents`; `now` (ms) decides which daily
    /// buckets are old enough to forget.
    @discardableResult
    public func catchUp(maxEvents: Int, now: Int64) throws -> Progress {
        var progress = Progress()
        progress.sequence = try cursor()
        while progress.events < maxEvents {
            let entries = try store.readLog(StoreKeys.eventLog, after: progress.sequence,
                                            limit: min(Self.batch, maxEvents - progress.events))
            guard let last = entries.last else { break }
            try fold(entries.map { entry throws(StoreError) in
                MetricsFold.Item(try MetricsEventView.of(entry.bytes, sequence: entry.sequence), sequence: entry.sequence)
            }, now: now)
            try advance(to: last.sequence)
            progress.events += entries.count
            progress.sequence = last.sequence
        }
        progress.caughtUp = try log.bounds().last <= progress.sequence
        return progress
    }

    /// One batch, shard by shard: each shard's write counts the batch's events it has not.
    func fold(_ batch: [MetricsFold.Item], now: Int64) throws {
        guard let last = batch.last?.sequence else { return }
        var shards = Set<MetricsShardID>()
        for item in batch {
            if item.flow != nil { shards.insert(item.flowShard) }
            for seen in item.seen { shards.insert(seen.shard) }
        }
        let fold = MetricsFold(store: store)
        for shard in shards.sorted() {
            try store.addToSet(StoreKeys.metricsShards, shard.member)
            let written = try store.update(StoreKeys.metricsShard(shard), as: MetricsShard.self, attempts: Self.attempts) {
                (current) throws(StoreError) -> StoreUpdate<MetricsShard, [String: MetricsSubscriptionRecord]> in
                var record = current ?? MetricsShard(shard)
                // States the last write left: to their keys before any is read.
                try fold.copy(record.pending, of: shard)
                guard last > record.sequence else { return .keep([:]) }
                try fold.fold(batch, into: &record, through: last)
                record.prune(now: now)
                return .write(record, record.pending)
            }
            try fold.copy(written, of: shard)
            try forget(written, of: shard)
        }
    }

    /// Once the states are at their keys the record need not carry them: readers (a scrape,
    /// the dashboard) then decode a record of a few kilobytes. Only while the record still
    /// holds exactly those states: a later write's are left for their copy.
    private func forget(_ copied: [String: MetricsSubscriptionRecord], of shard: MetricsShardID) throws(StoreError) {
        guard !copied.isEmpty else { return }
        try store.update(StoreKeys.metricsShard(shard), as: MetricsShard.self, attempts: Self.attempts) {
            (current) throws(StoreError) -> StoreUpdate<MetricsShard, Void> in
            guard var record = current, record.pending == copied else { return .keep(()) }
            record.pending = [:]
            return .write(record, ())
        }
    }

    /// The cursor only moves forward (a slower run that finishes later leaves it).
    private func advance(to sequence: Int64) throws(StoreError) {
        try store.update(StoreKeys.metricsCursor, as: MetricsCursor.self, attempts: Self.attempts) {
            (current) throws(StoreError) -> StoreUpdate<MetricsCursor, Void> in
            guard sequence > current?.sequence ?? 0 else { return .keep(()) }
            return .write(MetricsCursor(sequence: sequence), ())
        }
    }
}

/// How far the aggregator has counted the event log everywhere (`StoreKeys.metricsCursor`).
public struct MetricsCursor: StoreRecord, Sendable, Equatable {
    public var sequence: Int64

    public init(sequence: Int64) {
        self.sequence = sequence
    }
}
