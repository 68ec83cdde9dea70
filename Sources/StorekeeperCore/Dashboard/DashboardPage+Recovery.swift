/// The pipeline's queue age, webhook delivery counts and recover-notifications' last runs.
extension DashboardPage {
    /// "Queue depth: N, the oldest job waiting 3 min 20 s" (against the real clock).
    func queueLine() -> String {
        var line = "Queue depth: <strong>\(reading.queueDepth)</strong>"
        if reading.oldestPendingEnqueuedAt != nil {
            line += ", the oldest job waiting <strong>\(HTMLEscaping.escape(Self.duration(seconds: Int64(reading.oldestJobAgeSeconds))))</strong>"
        }
        return line
    }

    /// Webhook endpoints: their queue now, and every delivery attempt since counting began.
    func webhookTable() -> String {
        guard !reading.webhooks.isEmpty else { return "<p>No webhook endpoint.</p>" }
        let rows = reading.webhooks.map { status -> [String] in
            let counts = reading.webhookDeliveries[status.name] ?? WebhookDeliveryCounts()
            return [status.name, String(status.pending), String(status.failures.values.reduce(0, +)), String(status.deadLetters.count),
                    String(counts.delivered), String(counts.failed), String(counts.dead)]
        }
        return DashboardHTML.grid(["Endpoint", "Pending", "Failing", "Dead now", "Delivered", "Failed attempts", "Gave up"], rows)
    }

    /// The view's last recovery runs, newest first: when, the window, what they found.
    func recoveryRuns() -> String {
        let runs = reading.recoveryRuns.filter { $0.key.environment == environment && (app == nil || $0.key.app == app) }
            .flatMap { shard, runs in runs.map { (shard.app, $0) } }
            .sorted { $0.1.endedAt > $1.1.endedAt }.prefix(10)
        var html = "<h3>recover-notifications: the last runs</h3>"
        guard !runs.isEmpty else { return html + "<p>No run recorded.</p>" }
        html += "<p>Each notification Apple's history lists with a first send attempt other than SUCCESS did not reach "
            + "the webhook at once; each one queued was missing until the run found it.</p>"
        let rows = runs.map { bundleId, run -> [String] in
            let results = run.report.firstSendAttemptResults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            return [UTCTimestamp.format(milliseconds: run.endedAt), bundleId,
                    "\(UTCTimestamp.format(milliseconds: run.startDate)) to \(UTCTimestamp.format(milliseconds: run.endDate))",
                    run.complete ? "complete" : "incomplete" + (run.report.stoppedBy.map { " (\($0))" } ?? ""),
                    String(run.report.fetched), String(run.report.queued), results.isEmpty ? "none" : results.joined(separator: ", ")]
        }
        return html + DashboardHTML.grid(["Ended", "App", "Window", "Read", "Listed", "Missing, queued", "First send attempts"], rows)
    }

    /// 200 → "3 min 20 s"; 7500 → "2 h 5 min".
    static func duration(seconds: Int64) -> String {
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min \(seconds % 60) s" }
        return "\(seconds / 3600) h \(seconds % 3600 / 60) min"
    }
}
