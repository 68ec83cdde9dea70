/// How many of each kind of item a copy wrote or found already there.
public struct StoreCopyCounts: Codable, Sendable, Equatable {
    public var values = 0
    public var setMembers = 0
    public var jobs = 0
    public var logEntries = 0
    public var logStreams = 0

    public init() {}
}

/// Where an unfinished copy stands, kept in the target (`StoreKeys.copyProgress`) after each
/// page: a copy killed at any moment starts again from the last page it saved, and the items
/// it had written since are found equal and skipped (jobs and log entries by their id and
/// sequence, so nothing is added twice).
struct StoreCopyProgress: Codable, Equatable {
    /// The source's identity (a digest of its location): a cursor of another source is no use.
    var source: String
    var cursor: String?
    var copied = StoreCopyCounts()
    var skipped = StoreCopyCounts()
    var expired = 0
    var pages = 0
}

/// What a copy did.
public struct StoreCopyResult: Sendable, Equatable {
    public var copied: StoreCopyCounts
    public var skipped: StoreCopyCounts
    /// Values whose expiry passed between the walk and the write: not copied.
    public var expired: Int
    public var pages: Int
    /// True when it went on from an earlier run's saved progress.
    public var resumed: Bool
}

/// What a verification found.
public struct StoreVerification: Sendable, Equatable {
    /// Items compared, both directions.
    public var compared: Int
    /// The first differences, at most the limit asked.
    public var differences: [StoreDifference]
    /// All of them, also those beyond the limit.
    public var differenceCount: Int

    public var passed: Bool { differenceCount == 0 }
}

/// One item that the two stores do not hold alike.
public struct StoreDifference: Sendable, Equatable, Encodable {
    /// The key, or the queue's job, or the log's part.
    public var item: String
    public var difference: String
}

/// `copy-store` refused or found something of its own (a store failure is a `StoreError`).
public typealias CopyError = DomainError<CopyErrorKind>

public enum CopyErrorKind: String, ErrorKind {
    /// COPY_STORE_TARGET_URL names the store STORE_URL names: copying a store onto itself
    /// would verify trivially and copy nothing.
    case sameStore = "copy_same_store"
    /// The verification found items the two stores do not hold alike. Retryable: a live
    /// store is copied again (or its writers stopped) until a verification passes.
    case differs = "copy_differs"

    public var disposition: ErrorDisposition {
        switch self {
        case .sameStore: .configuration
        case .differs: .retryLater
        }
    }
}
