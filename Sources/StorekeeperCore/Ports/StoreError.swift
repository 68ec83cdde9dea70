/// A failure of the key-value store. None is the caller's fault: whatever request was being
/// answered, the store failing is our outage. So every store failure is retried later (the
/// caller answers 503 / exits 75 and the work is tried again, never dropped), except the
/// store's own configuration (exit 78), which no retry can fix.
///
/// `kind` says what went wrong, for the log and for the worker (a store that cannot be used
/// stops its run; one record that breaks the contract is that notification's failure);
/// `disposition` is all a function needs to choose its answer. `reason` carries the library's
/// own message, the host or the path: it goes to the log, never into an answer, and neither
/// does the code (the answer is `store_unavailable` or `configuration_error`).
public typealias StoreError = DomainError<StoreErrorKind>

public enum StoreErrorKind: String, ErrorKind {
    /// Cannot connect, connection lost, timed out, locked beyond the busy timeout, an I/O
    /// error, a server loading its data or failing over.
    case unavailable = "store_unavailable"
    /// No room to write: SQLite's disk is full, Redis reached `maxmemory` (eviction is off).
    case full = "store_full"
    /// Writes refused: a read-only database file or file system, a Redis replica.
    case readOnly = "store_read_only"
    /// The database file is damaged or is not a database at all.
    case corrupt = "store_corrupt"
    /// STORE_URL is malformed or names an unsupported scheme, or the store refused the
    /// credentials it names (exit 78).
    case invalidConfiguration = "store_configuration_error"
    /// One record or reply breaks the adapter's contract (a value that does not decode, a
    /// key of the wrong type, a script error): that record, not the whole store.
    case failed = "store_error"

    public var disposition: ErrorDisposition { self == .invalidConfiguration ? .configuration : .retryLater }
}

extension StoreError {
    /// True when the store as a whole cannot be used right now (a worker stops its run rather
    /// than spend every queued job's attempts on it); false when one record is at fault.
    public var isStoreFault: Bool { kind != .failed }
}
