/// One entry to append to an append-only log (`KeyValueStore.appendToLog`).
public struct LogAppend: Sendable, Equatable {
    /// Unique within the log: appending the same id again appends nothing.
    public var id: String
    /// What the entry is about (a customer), whose entries are counted by a version of their
    /// own; nil for an entry about no stream.
    public var stream: String?
    /// The stream's version the caller saw when it built the entry (0: none yet). The entry is
    /// appended only while the stream is still at it, so whoever builds entries of one stream
    /// from the state they read can never put an older state at a higher version.
    public var expectedStreamVersion: Int64
    /// When it was recorded (milliseconds since 1970, by the caller's clock): what trimming goes by.
    public var recordedAt: Int64
    public var bytes: [UInt8]

    public init(id: String, stream: String?, expectedStreamVersion: Int64, recordedAt: Int64, bytes: [UInt8]) {
        self.id = id
        self.stream = stream
        self.expectedStreamVersion = expectedStreamVersion
        self.recordedAt = recordedAt
        self.bytes = bytes
    }
}

/// What `appendToLog` did.
public enum LogAppendOutcome: Sendable, Equatable {
    /// Appended at `sequence`; its stream is now at `streamVersion` (0 without a stream).
    case appended(sequence: Int64, streamVersion: Int64)
    /// An entry with this id is in the log already, at `sequence`: nothing changed.
    case duplicate(sequence: Int64)
    /// The stream is no longer at the expected version (it is at `currentVersion`): nothing
    /// changed; read the state again, build the entry again.
    case streamMoved(currentVersion: Int64)
}

/// One entry read from an append-only log.
public struct LogEntry: Sendable, Equatable {
    /// 1 for a log's first entry, then increasing by one: never reused, also after trimming.
    public var sequence: Int64
    public var id: String
    public var stream: String?
    /// The stream's version this entry made (0 without a stream).
    public var streamVersion: Int64
    public var recordedAt: Int64
    public var bytes: [UInt8]

    public init(sequence: Int64, id: String, stream: String?, streamVersion: Int64, recordedAt: Int64, bytes: [UInt8]) {
        self.sequence = sequence
        self.id = id
        self.stream = stream
        self.streamVersion = streamVersion
        self.recordedAt = recordedAt
        self.bytes = bytes
    }
}

/// Which sequences a log holds.
public struct LogBounds: Sendable, Equatable {
    /// The oldest entry still kept; nil when the log holds none.
    public var first: Int64?
    /// The last sequence ever assigned (0 when nothing was ever appended), kept or trimmed.
    public var last: Int64

    public init(first: Int64?, last: Int64) {
        self.first = first
        self.last = last
    }
}
