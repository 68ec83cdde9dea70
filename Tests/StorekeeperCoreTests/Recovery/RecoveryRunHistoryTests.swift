import StorekeeperCore
import StorekeeperTesting
import Testing

@Suite("recover-notifications' kept runs: bounded per app and environment, oldest dropped first")
struct RecoveryRunHistoryTests {
    static func run(_ index: Int, stoppedBy: String? = nil) -> RecoveryRun {
        var report = RecoveryReport()
        report.queued = index
        report.firstSendAttemptResults = ["SUCCESS": index]
        report.stoppedBy = stoppedBy
        return RecoveryRun(endedAt: Int64(index) * 1000, window: (0, Int64(index)), report: report)
    }

    @Test func theLastThirtyRunsAreKeptPerAppAndEnvironment() throws {
        let store = MemoryStore()
        let production = MetricsShardID(app: "com.example.app", environment: "Production")
        let sandbox = MetricsShardID(app: "com.example.app", environment: "Sandbox")
        #expect(try RecoveryRunHistory.readAll(store: store).isEmpty)
        for index in 1...(RecoveryRunHistory.kept + 5) {
            try RecoveryRunHistory.append(Self.run(index), for: production, store: store)
        }
        try RecoveryRunHistory.append(Self.run(7, stoppedBy: "RateLimitExceededError"), for: sandbox, store: store)
        let all = try RecoveryRunHistory.readAll(store: store)
        #expect(Set(all.keys) == [production, sandbox])
        let kept = try #require(all[production])
        #expect(kept.count == RecoveryRunHistory.kept)
        #expect(kept.map(\.report.queued) == Array(6...(RecoveryRunHistory.kept + 5)), "oldest first, the first five dropped")
        #expect(kept.allSatisfy { $0.complete })
        let stopped = try #require(all[sandbox]?.last)
        #expect(!stopped.complete && all[sandbox]?.count == 1)
        // Its reading for the metrics: the last run's figures.
        var outOfTime = RecoveryReport()
        outOfTime.outOfTime = true
        #expect(!RecoveryRun(endedAt: 1, window: (0, 1), report: outOfTime).complete)
    }
}
