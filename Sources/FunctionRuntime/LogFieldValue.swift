/// A type that can be a log field, so `log.info("stored", ["id": id, "count": 3])` needs no
/// wrapping at the call site.
public protocol LogFieldValue {
    var logValue: LogValue { get }
}

extension LogValue: LogFieldValue {
    public var logValue: LogValue { self }
}

extension String: LogFieldValue {
    public var logValue: LogValue { .string(self) }
}

extension Substring: LogFieldValue {
    public var logValue: LogValue { .string(String(self)) }
}

extension Bool: LogFieldValue {
    public var logValue: LogValue { .bool(self) }
}

extension Double: LogFieldValue {
    public var logValue: LogValue { .double(self) }
}

extension Int: LogFieldValue {
    public var logValue: LogValue { .integer(Int64(self)) }
}

extension Int32: LogFieldValue {
    public var logValue: LogValue { .integer(Int64(self)) }
}

extension Int64: LogFieldValue {
    public var logValue: LogValue { .integer(self) }
}

extension UInt64: LogFieldValue {
    public var logValue: LogValue {
        // Beyond Int64 only as text, rather than silently wrapping.
        if let value = Int64(exactly: self) { return .integer(value) }
        return .string(String(self))
    }
}
