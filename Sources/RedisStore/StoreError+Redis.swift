import StorekeeperCore

extension StoreError {
    /// An error reply from the server, classified by its error code (the reply's first word,
    /// by the protocol's convention), never by its text. Codes that mean "busy, full or
    /// between roles right now" are retryable; a refused login is a configuration error; the
    /// rest are `otherwise`.
    static func fromServer(_ message: String, code: Substring, during operation: String,
                           otherwise: Kind = .failed) -> StoreError {
        let text = "\(operation): \(message)"
        switch code {
        case "OOM":
            // maxmemory reached and eviction is off by design: writes wait for room.
            return StoreError(.full, text)
        case "READONLY":
            // A replica (or a failed-over primary): writes go through once STORE_URL's host
            // is a primary again.
            return StoreError(.readOnly, text)
        case "LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN", "NOREPLICAS", "MISCONF":
            // Restarting and loading its data, running a long script, failing over, or unable
            // to persist (MISCONF: its own disk is full or failing): the same request
            // succeeds later.
            return StoreError(.unavailable, text)
        case "NOAUTH", "WRONGPASS", "NOPERM":
            // STORE_URL lacks or has the wrong credentials, or the ACL user may not do this.
            return StoreError(.invalidConfiguration, text)
        default:
            return StoreError(otherwise, text)
        }
    }
}
