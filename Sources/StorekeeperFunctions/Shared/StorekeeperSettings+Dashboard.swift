import FunctionRuntime
import StorekeeperCore

/// The dashboard's settings (issue 17).
extension StorekeeperSettings {
    static let dashboardQuietHours = Setting<Int>(
        "STOREKEEPER_DASHBOARD_QUIET_HOURS", .optional, default: "6",
        help: "the dashboard shows a red band when no notification arrived for longer than this many hours (6; 1 to 720)"
    ) { text throws(SettingProblem) in
        guard let hours = Int(text), (1...720).contains(hours) else { throw SettingProblem("must be a whole number of hours from 1 to 720") }
        return hours
    }
}
