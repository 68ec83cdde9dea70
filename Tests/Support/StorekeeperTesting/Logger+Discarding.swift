import FunctionRuntime
import StorekeeperCore

extension Logger {
    /// A logger that writes nothing, for handler tests that do not read the log.
    public static func discarding(function: String = "test", clock: any TimeSource = SystemTime()) -> Logger {
        Logger(function: function, clock: clock, emit: { _ in })
    }
}
