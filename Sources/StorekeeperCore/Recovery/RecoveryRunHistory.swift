/// The last runs of recover-notifications for one app in one environment
/// (`StoreKeys.recoveryRuns`), oldest first, trimmed to `kept` on every write. A run is
/// written once, as it ends (also when Apple stopped it: marked incomplete); a run killed or
/// failing on the store writes nothing.
public struct RecoveryRunHistory: StoreRecord, Sendable, Equatable {
    /// Runs kept per app and environment.
    public static let kept = 30
    static let attempts = 32

    public var runs: [RecoveryRun] = []

    public init() {}

    /// Adds a run to the history of `shard`, dropping the oldest beyond `kept`.
    public static func append(_ run: RecoveryRun, for shard: MetricsShardID, store: any KeyValueStore) throws(StoreError) {
        // Listed before its first run is written, so a reader finds every history.
        try store.addToSet(StoreKeys.recoveryHistories, shard.member)
        try store.update(StoreKeys.recoveryRuns(shard), as: Self.self, attempts: attempts) {
            (current) throws(StoreError) -> StoreUpdate<Self, Void> in
            var history = current ?? Self()
            history.runs.append(run)
            history.runs.removeFirst(max(0, history.runs.count - kept))
            return .write(history, ())
        }
    }

    /// Every app and environment's history, by app and environment.
    public static func readAll(store: any KeyValueStore) throws(StoreError) -> [MetricsShardID: [RecoveryRun]] {
        var histories: [MetricsShardID: [RecoveryRun]] = [:]
        for member in try store.setMembers(StoreKeys.recoveryHistories) {
            guard let shard = MetricsShardID(member: member),
                  let history = try store.get(StoreKeys.recoveryRuns(shard), as: Self.self) else { continue }
            histories[shard] = history.runs
        }
        return histories
    }
}
