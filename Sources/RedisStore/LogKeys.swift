import StorekeeperCore

/// The Redis keys of one append-only log, all under the log's name as one hash tag, so each
/// log script touches them together on a cluster. A log named `{events}` lives in
/// `{events}:ids`, `{events}:streams`, `{events}:last`, `{events}:trimmed`,
/// `{events}:entries` and `{events}:meta`; a name without a hash tag (`events`) is wrapped
/// in one, so `events` and `{events}` name the same log.
struct LogKeys {
    let ids: String
    let streams: String
    let last: String
    let trimmed: String
    let entries: String
    let meta: String

    init(log: String) throws(StoreError) {
        let base = QueueKeys.hashTag(of: log) == nil ? "{\(log)}" : log
        guard QueueKeys.hashTag(of: base) != nil else {
            throw StoreError(.failed, "log name '\(log)' cannot be given a hash tag: it must be non-empty and not start with '}'")
        }
        ids = base + ":ids"
        streams = base + ":streams"
        last = base + ":last"
        trimmed = base + ":trimmed"
        entries = base + ":entries"
        meta = base + ":meta"
    }

    /// In the order every log script expects them in KEYS.
    var all: [String] { [ids, streams, last, trimmed, entries, meta] }
}
