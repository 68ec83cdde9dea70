/// How loud a log line is; lines below `STOREKEEPER_LOG_LEVEL` (default `info`) are dropped.
public enum LogLevel: Int, Sendable, Comparable {
    case debug
    case info
    case warning
    case error

    /// The name written in the `level` field.
    public var name: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }

    /// Accepts the names above, and `warn`; nil for anything else.
    public init?(name: String) {
        switch name.lowercased() {
        case "debug": self = .debug
        case "info": self = .info
        case "warning", "warn": self = .warning
        case "error": self = .error
        default: return nil
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
