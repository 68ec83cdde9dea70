/// One value in a log line. Strings are redacted before they are written.
public enum LogValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
}
