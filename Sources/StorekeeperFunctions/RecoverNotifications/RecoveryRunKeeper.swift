import FunctionRuntime
import StorekeeperCore

/// The end of a recover-notifications run: its report logged and kept in the store, once,
/// for the metrics and the dashboard (`RecoveryRunHistory`). A run Apple stopped is kept
/// marked incomplete; a store failure here is the run's answer (503, exit 75), and the next
/// run of the same question resumes and deduplicates as always.
struct RecoveryRunKeeper {
    let store: any KeyValueStore
    let shard: MetricsShardID
    let window: (start: Int64, end: Int64)
    let clock: any TimeSource
    let log: Logger

    func keep(_ report: RecoveryReport) throws {
        log.info("notification_history_replayed", [
            "pages": report.pages, "fetched": report.fetched, "queued": report.queued,
            "alreadyKnown": report.alreadyKnown, "invalid": report.invalid.values.reduce(0, +),
        ])
        let run = RecoveryRun(endedAt: clock.now().millisecondsSince1970, window: window, report: report)
        try RecoveryRunHistory.append(run, for: shard, store: store)
    }
}
