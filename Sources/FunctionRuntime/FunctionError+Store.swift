import StorekeeperCore

extension FunctionError {
    /// The wire code of every answer that says "the store failed, try again": the one the
    /// webhook has always answered 503 with.
    public static let storeUnavailableCode = FunctionErrorCode.storeUnavailable.rawValue

    /// The one place a store failure becomes an answer, by its disposition alone: 503 / exit
    /// 75 for anything that is not the store's configuration (Apple and cron retry, nothing is
    /// lost), exit 78 for STORE_URL or its credentials. The answer is the same whatever broke
    /// and whichever store it is: the kind, SQLite's or Redis' message, result codes, hosts
    /// and paths are in `error.reason`, which the runtime writes to the log only.
    public init(storeFailure error: StoreError) {
        switch error.disposition {
        case .configuration:
            self = .configuration("\(RuntimeSettings.storeURL.name) does not lead to a usable store; see the log",
                                  fileID: error.origin.fileID, line: error.origin.line)
        default:
            self = .temporary(code: .storeUnavailable, message: "the store is unavailable; retry later",
                              fileID: error.origin.fileID, line: error.origin.line)
        }
    }
}
