import StorekeeperCore

extension StoreError {
    /// An error reply from the server, classified by its error code (the reply's first word,
    /// by the protocol's convention). Codes that mean "busy or between roles right now" are
    /// retryable; a refused login is a configuration error; the rest are `otherwise`.
    static func fromServer(_ message: String, code: Substring, during operation: String,
                           otherwise: Kind = .failed) -> StoreError {
        let text = "\(operation): \(message)"
        switch code {
        case "LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN", "READONLY", "NOREPLICAS", "OOM":
            // Restarting and loading its data, running a long script, failing over, or full
            // (eviction is off by design): the same request succeeds later.
            return StoreError(.unavailable, text)
        case "NOAUTH", "WRONGPASS", "NOPERM":
            // STORE_URL lacks or has the wrong credentials, or the ACL user may not do this.
            return StoreError(.invalidConfiguration, text)
        default:
            return StoreError(otherwise, text)
        }
    }
}
