import Foundation
import StorekeeperCore
import Testing
import TestSupport

extension RecoverNotificationsTests {
    static func recoveryMetrics(_ world: AppleWorld) throws -> [PrometheusParser.Family] {
        let result = try FunctionBinary(name: "metrics").run(stdin: Data("{}".utf8), environment: world.environment)
        #expect(result.exitCode == 0, "\(result.stderrText.suffix(2000))")
        return try PrometheusParser.parse(result.stdoutText)
    }

    @Test("each run's report is kept, a stopped one marked incomplete; metrics answers the last run", arguments: Backend.allCases)
    func runsAreKeptForTheMetrics(_ backend: Backend) throws {
        guard backend == .sqlite || AppleWorld.redisAvailable else { return }
        let world = try Self.world(backend)
        try Self.deliverFirstTwo(world)
        let app = ["app": FakeAppStore.bundleId, "environment": "Production"]
        #expect(try Self.recoveryMetrics(world).value("storekeeper_recovery_last_run_complete", app) == nil)

        // Apple answers page 1 (the two that arrived), then fails: kept, incomplete.
        try world.fake.queueFaults([["kind": "pass"]] + Array(repeating: ["kind": "status", "status": 503], count: 40))
        let before = Double(E2E.nowMilliseconds) / 1000
        #expect(try world.run("recover-notifications", window).exitCode == 75)
        var families = try Self.recoveryMetrics(world)
        #expect(families.value("storekeeper_recovery_last_run_complete", app) == 0)
        #expect(families.value("storekeeper_recovery_last_run_queued", app) == 0)
        #expect(families.value("storekeeper_recovery_first_send_attempts", app.merging(["result": "SUCCESS"]) { $1 }) == 2)
        let stoppedAt = try #require(families.value("storekeeper_recovery_last_run_timestamp_seconds", app))
        #expect(stoppedAt >= before.rounded(.down) && stoppedAt <= Double(E2E.nowMilliseconds) / 1000 + 1)

        // The next run resumes at page 2: complete, its own pages' first attempts.
        try world.fake.clearFaults()
        #expect(try world.run("recover-notifications", window).exitCode == 0)
        families = try Self.recoveryMetrics(world)
        #expect(families.first { $0.name == "storekeeper_recovery_first_send_attempts" }?.type == "gauge")
        #expect(families.value("storekeeper_recovery_last_run_complete", app) == 1)
        #expect(families.value("storekeeper_recovery_last_run_queued", app) == 3)
        for (result, count) in ["SUCCESS": 1.0, "TIMED_OUT": 1, "SSL_ISSUE": 1, "UNSUCCESSFUL_HTTP_RESPONSE_CODE": 1] {
            #expect(families.value("storekeeper_recovery_first_send_attempts", app.merging(["result": result]) { $1 }) == count, "\(result)")
        }
        #expect(try #require(families.value("storekeeper_recovery_last_run_timestamp_seconds", app)) >= stoppedAt)

        let kept = try #require(try RecoveryRunHistory.readAll(store: world.store.open())[MetricsShardID(app: FakeAppStore.bundleId,
                                                                                                      environment: "Production")])
        #expect(kept.map(\.complete) == [false, true])
        #expect(kept.first?.report.stoppedBy != nil && kept.last?.report.resumed == true)
        #expect(kept.allSatisfy { $0.startDate == Self.windowStart && $0.endDate == Self.now })
    }
}
