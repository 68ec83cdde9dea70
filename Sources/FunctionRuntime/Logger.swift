import StorekeeperCore

/// JSON-lines logging on stderr: `{"ts":...,"level":...,"fn":...,"event":...,<fields>}`.
///
/// Every string value passes through `LogRedaction` and fields whose names say "token",
/// "secret" and the like are blanked, so a careless call cannot put a JWS, a bearer token or
/// a key in the log. Still: never log request bodies or headers wholesale.
public struct Logger {
    public let function: String
    public let minimumLevel: LogLevel
    private let clock: any TimeSource
    private let emit: ([UInt8]) -> Void

    /// Fields the logger writes itself; a caller's field with one of these names gets a `_` prefix.
    static let reservedKeys: Set<String> = ["ts", "level", "fn", "event"]

    public init(function: String, clock: any TimeSource, minimumLevel: LogLevel = .info, emit: @escaping ([UInt8]) -> Void) {
        self.function = function
        self.clock = clock
        self.minimumLevel = minimumLevel
        self.emit = emit
    }

    public func debug(_ event: String, _ fields: [String: any LogFieldValue] = [:]) {
        log(.debug, event, fields)
    }

    public func info(_ event: String, _ fields: [String: any LogFieldValue] = [:]) {
        log(.info, event, fields)
    }

    public func warning(_ event: String, _ fields: [String: any LogFieldValue] = [:]) {
        log(.warning, event, fields)
    }

    public func error(_ event: String, _ fields: [String: any LogFieldValue] = [:]) {
        log(.error, event, fields)
    }

    public func log(_ level: LogLevel, _ event: String, _ fields: [String: any LogFieldValue] = [:]) {
        guard level >= minimumLevel else { return }
        emit(line(level, event, fields))
    }

    /// The encoded line, newline included; separate so tests can read it without a sink.
    func line(_ level: LogLevel, _ event: String, _ fields: [String: any LogFieldValue]) -> [UInt8] {
        var writer = JSONLineWriter()
        writer.field("ts", .string(LogTimestamp.format(clock.now())))
        writer.field("level", .string(level.name))
        writer.field("fn", .string(function))
        writer.field("event", .string(LogRedaction.redact(event)))
        for key in fields.keys.sorted() {
            guard let value = fields[key]?.logValue else { continue }
            let name = Logger.reservedKeys.contains(key) ? "_" + key : key
            writer.field(name, LogRedaction.redact(value, key: key))
        }
        return writer.finished()
    }
}
