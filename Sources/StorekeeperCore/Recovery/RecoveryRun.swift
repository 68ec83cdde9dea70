/// One run of recover-notifications as the store keeps it for the metrics and the dashboard:
/// what Apple's history said about its first send attempts, and what was missing.
public struct RecoveryRun: Codable, Sendable, Equatable {
    /// When the run ended (ms, the function clock).
    public var endedAt: Int64
    /// The window asked about (ms).
    public var startDate: Int64
    public var endDate: Int64
    /// False when Apple stopped answering or refused the key (`report.stoppedBy`) or the budget
    /// ran out (`report.outOfTime`): the report holds the pages read until then, and the next
    /// run of the same question resumes after them.
    public var complete: Bool
    public var report: RecoveryReport

    public init(endedAt: Int64, window: (start: Int64, end: Int64), report: RecoveryReport) {
        self.endedAt = endedAt
        startDate = window.start
        endDate = window.end
        complete = report.stoppedBy == nil && !report.outOfTime
        self.report = report
    }
}
