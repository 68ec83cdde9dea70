import StorekeeperCore

// The append-only log (issue 15). Being written now; until then every call fails as a
// store failure, never silently.
extension SQLiteStore {
    private static var notYet: StoreError { StoreError(.failed, "the event log is not implemented by this adapter yet") }

    public func appendToLog(_ log: String, _ entry: LogAppend) throws(StoreError) -> LogAppendOutcome { throw Self.notYet }
    public func logStreamVersion(_ log: String, stream: String) throws(StoreError) -> Int64 { throw Self.notYet }
    public func readLog(_ log: String, after: Int64, limit: Int) throws(StoreError) -> [LogEntry] { throw Self.notYet }
    public func logSequence(_ log: String, id: String) throws(StoreError) -> Int64? { throw Self.notYet }
    public func logBounds(_ log: String) throws(StoreError) -> LogBounds { throw Self.notYet }
    public func trimLog(_ log: String, recordedBefore: Int64, limit: Int) throws(StoreError) -> Int { throw Self.notYet }
}
