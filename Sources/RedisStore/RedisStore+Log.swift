import StorekeeperCore

/// The append-only logs: each operation that writes or must see several keys at once is one
/// Lua script over the log's keys (see `LogKeys` and RedisScript+Log.swift for the layout).
extension RedisStore {
    public func appendToLog(_ log: String, _ entry: LogAppend) throws(StoreError) -> LogAppendOutcome {
        let keys = try LogKeys(log: log)
        // The version this entry makes if it is appended: only then is it stored.
        let version: Int64 = entry.stream == nil ? 0 : entry.expectedStreamVersion &+ 1
        let meta = Self.logMeta(id: entry.id, stream: entry.stream, streamVersion: version, recordedAt: entry.recordedAt)
        let reply = try evaluate(.appendToLog, keys: keys.all, arguments: [
            Array(entry.id.utf8), Array((entry.stream == nil ? "0" : "1").utf8), Array((entry.stream ?? "").utf8),
            Array(String(entry.expectedStreamVersion).utf8), meta, entry.bytes,
        ])
        guard case .array(let fields) = reply, let first = fields.first, case .integer(let outcome) = first else {
            throw Self.unexpected(reply, "appendToLog")
        }
        switch (outcome, fields.count) {
        case (1, 3):
            guard case .integer(let sequence) = fields[1], case .integer(let stored) = fields[2], stored == version else {
                throw Self.unexpected(reply, "appendToLog")
            }
            return .appended(sequence: sequence, streamVersion: version)
        case (0, 2):
            guard case .integer(let sequence) = fields[1] else { throw Self.unexpected(reply, "appendToLog") }
            return .duplicate(sequence: sequence)
        case (2, 2):
            guard case .integer(let current) = fields[1] else { throw Self.unexpected(reply, "appendToLog") }
            return .streamMoved(currentVersion: current)
        default:
            throw Self.unexpected(reply, "appendToLog")
        }
    }

    public func logStreamVersion(_ log: String, stream: String) throws(StoreError) -> Int64 {
        let keys = try LogKeys(log: log)
        return try Self.decimal(run(["HGET", keys.streams, stream], "logStreamVersion"), "logStreamVersion") ?? 0
    }

    public func readLog(_ log: String, after: Int64, limit: Int) throws(StoreError) -> [LogEntry] {
        guard limit > 0 else { return [] }
        let keys = try LogKeys(log: log)
        let reply = try evaluate(.readLog, keys: keys.all, arguments: [Array(String(after).utf8), Array(String(limit).utf8)])
        guard case .array(let fields) = reply, let head = fields.first, case .integer(let first) = head,
              fields.count % 2 == 1 else {
            throw Self.unexpected(reply, "readLog")
        }
        var entries: [LogEntry] = []
        entries.reserveCapacity(fields.count / 2)
        var index = 1
        while index < fields.count {
            guard case .string(let meta) = fields[index], case .string(let bytes) = fields[index + 1] else {
                throw Self.unexpected(reply, "readLog")
            }
            let sequence = first + Int64(entries.count)
            entries.append(try Self.logEntry(meta: meta, bytes: bytes, sequence: sequence))
            index += 2
        }
        return entries
    }

    public func logSequence(_ log: String, id: String) throws(StoreError) -> Int64? {
        let keys = try LogKeys(log: log)
        return try Self.decimal(run(["HGET", keys.ids, id], "logSequence"), "logSequence")
    }

    public func logBounds(_ log: String) throws(StoreError) -> LogBounds {
        let keys = try LogKeys(log: log)
        // One command over two keys of one slot: both read at the same instant.
        let reply = try run(["MGET", keys.last, keys.trimmed], "logBounds")
        guard case .array(let fields) = reply, fields.count == 2 else { throw Self.unexpected(reply, "logBounds") }
        let last = try Self.decimal(fields[0], "logBounds") ?? 0
        let trimmed = try Self.decimal(fields[1], "logBounds") ?? 0
        return LogBounds(first: trimmed < last ? trimmed + 1 : nil, last: last)
    }

    @discardableResult
    public func trimLog(_ log: String, recordedBefore: Int64, limit: Int) throws(StoreError) -> Int {
        guard limit > 0 else { return 0 }
        let keys = try LogKeys(log: log)
        let reply = try evaluate(.trimLog, keys: keys.all, arguments: [
            Array(String(recordedBefore).utf8), Array(String(limit).utf8),
        ])
        guard case .integer(let removed) = reply else { throw Self.unexpected(reply, "trimLog") }
        return Int(removed)
    }

    // MARK: - Private

    /// "<streamVersion> <recordedAt> <idLength> <id><stream>": the id's length in bytes
    /// says where the stream starts, so both may hold any bytes, spaces included.
    static func logMeta(id: String, stream: String?, streamVersion: Int64, recordedAt: Int64) -> [UInt8] {
        Array("\(streamVersion) \(recordedAt) \(id.utf8.count) ".utf8) + Array(id.utf8) + Array((stream ?? "").utf8)
    }

    private static func logEntry(meta: [UInt8], bytes: [UInt8], sequence: Int64) throws(StoreError) -> LogEntry {
        var position = 0
        guard let version = decimal(in: meta, at: &position), let recordedAt = decimal(in: meta, at: &position),
              let idLength = decimal(in: meta, at: &position), idLength >= 0, idLength <= meta.count - position else {
            throw StoreError(.failed, "readLog: the metadata of log entry \(sequence) was not written by this adapter")
        }
        let idEnd = position + Int(idLength)
        let id = String(decoding: meta[position..<idEnd], as: UTF8.self)
        let stream = version > 0 ? String(decoding: meta[idEnd...], as: UTF8.self) : nil
        return LogEntry(sequence: sequence, id: id, stream: stream, streamVersion: version, recordedAt: recordedAt, bytes: bytes)
    }

    /// The decimal number at `position` (an optional '-', then digits) and the space after it,
    /// which `position` then passes; nil when there is none or it overflows. By hand: a read
    /// of a page parses hundreds of these.
    private static func decimal(in bytes: [UInt8], at position: inout Int) -> Int64? {
        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        var index = negative ? position + 1 : position
        var value: Int64 = 0
        let firstDigit = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let digit = Int64(bytes[index] - UInt8(ascii: "0"))
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowAdding) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow, !overflowAdding else { return nil }
            value = next
            index += 1
        }
        guard index > firstDigit, index < bytes.count, bytes[index] == UInt8(ascii: " ") else { return nil }
        position = index + 1
        return value
    }

    /// A decimal bulk string, or nil for an absent key or field.
    private static func decimal(_ reply: RedisValue, _ operation: String) throws(StoreError) -> Int64? {
        switch reply {
        case .null:
            return nil
        case .string(let bytes):
            guard let number = Int64(String(decoding: bytes, as: UTF8.self)) else { throw unexpected(reply, operation) }
            return number
        default:
            throw unexpected(reply, operation)
        }
    }
}
