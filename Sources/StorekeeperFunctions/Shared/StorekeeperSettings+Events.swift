import FunctionRuntime
import StorekeeperCore

/// The event log's settings (issue 15).
extension StorekeeperSettings {
    /// Whole days, at least one, at most ten years: the log is the feed's and the
    /// webhooks' history, not the archive (export-data is).
    static let eventRetentionDays = Setting<Int>(
        "STOREKEEPER_EVENT_RETENTION_DAYS", .optional, default: String(EventLog.defaultRetentionDays),
        help: "how many days the event log keeps an event (default 90, at most 3650); list-events says so and reports a gap to a reader that fell further behind"
    ) { text throws(SettingProblem) in
        guard let days = Int(text), days >= 1, days <= 3650 else {
            throw SettingProblem("must be a whole number of days from 1 to 3650")
        }
        return days
    }

    static let events: [SettingDeclaration] = [eventRetentionDays.declaration]
}
