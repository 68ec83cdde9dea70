extension MetricsExposition {
    /// recover-notifications' last run per app and environment: what Apple's history said
    /// about its first send attempts (each one not SUCCESS a notification that did not reach
    /// the webhook at once), what was missing, whether it read the whole window, and when.
    static func recovery(_ reading: MetricsReading, into out: inout PrometheusText) {
        let last = reading.recoveryRuns.compactMap { shard, runs in runs.last.map { (shard, $0) } }.sorted { $0.0 < $1.0 }
        out.family("storekeeper_recovery_first_send_attempts", .gauge, help: "Notifications of the last recover-notifications "
                   + "run by how Apple's first attempt to send each went (firstSendAttemptResult: SUCCESS, TIMED_OUT, SSL_ISSUE, ...).")
        for (shard, run) in last {
            for (result, count) in run.report.firstSendAttemptResults.sorted(by: { $0.key < $1.key }) {
                out.sample("storekeeper_recovery_first_send_attempts",
                           ["app": shard.app, "environment": shard.environment, "result": result], Int64(count))
            }
        }
        out.family("storekeeper_recovery_last_run_queued", .gauge,
                   help: "Notifications the last recover-notifications run found missing and queued (each one a lost delivery).")
        for (shard, run) in last {
            out.sample("storekeeper_recovery_last_run_queued", ["app": shard.app, "environment": shard.environment],
                       Int64(run.report.queued))
        }
        out.family("storekeeper_recovery_last_run_complete", .gauge, help: "1 when the last recover-notifications run read "
                   + "its whole window, 0 when Apple stopped it or its budget ran out (the next run resumes).")
        for (shard, run) in last {
            out.sample("storekeeper_recovery_last_run_complete", ["app": shard.app, "environment": shard.environment],
                       Int64(run.complete ? 1 : 0))
        }
        out.family("storekeeper_recovery_last_run_timestamp_seconds", .gauge, help: "When the last recover-notifications run ended.")
        for (shard, run) in last {
            out.sample("storekeeper_recovery_last_run_timestamp_seconds", ["app": shard.app, "environment": shard.environment],
                       Double(run.endedAt) / 1000)
        }
    }
}
