import StorekeeperCore

/// The append-only logs: entries in `log_entries`, keyed by (log, sequence); each stream's
/// version in `log_streams`; each log's last sequence in `log_sequences` (see SQLiteSchema).
/// An append is one `BEGIN IMMEDIATE` transaction, so concurrent processes queue on the
/// write lock and each gets the next sequence: dense, and never reused after trimming.
extension SQLiteStore {
    public func appendToLog(_ log: String, _ entry: LogAppend) throws(StoreError) -> LogAppendOutcome {
        try immediateTransaction { (_) throws(StoreError) -> LogAppendOutcome in
            if let sequence = try sequenceOfEntry(log, id: entry.id) { return .duplicate(sequence: sequence) }
            var version: Int64 = 0
            if let stream = entry.stream {
                let current = try logStreamVersion(log, stream: stream)
                guard current == entry.expectedStreamVersion else { return .streamMoved(currentVersion: current) }
                version = current + 1
                try run(.setLogStreamVersion) { (statement) throws(StoreError) in
                    try statement.bind(log, at: 1)
                    try statement.bind(stream, at: 2)
                    try statement.bind(version, at: 3)
                    try statement.step()
                }
            }
            let sequence = try run(.nextLogSequence) { (statement) throws(StoreError) -> Int64 in
                try statement.bind(log, at: 1)
                guard try statement.step() else { throw StoreError(.failed, "nextLogSequence returned no row") }
                return statement.int64(at: 0)
            }
            try insert(entry, at: sequence, streamVersion: version, into: log)
            return .appended(sequence: sequence, streamVersion: version)
        }
    }

    public func logStreamVersion(_ log: String, stream: String) throws(StoreError) -> Int64 {
        try run(.logStreamVersion) { (statement) throws(StoreError) -> Int64 in
            try statement.bind(log, at: 1)
            try statement.bind(stream, at: 2)
            return try statement.step() ? statement.int64(at: 0) : 0
        }
    }

    public func readLog(_ log: String, after: Int64, limit: Int) throws(StoreError) -> [LogEntry] {
        // LIMIT -1 means no limit to SQLite: a limit of zero or less reads nothing.
        guard limit > 0 else { return [] }
        return try run(.readLog) { (statement) throws(StoreError) -> [LogEntry] in
            try statement.bind(log, at: 1)
            try statement.bind(after, at: 2)
            try statement.bind(Int64(limit), at: 3)
            var entries: [LogEntry] = []
            while try statement.step() {
                entries.append(LogEntry(
                    sequence: statement.int64(at: 0), id: statement.text(at: 1),
                    stream: statement.isNull(at: 2) ? nil : statement.text(at: 2),
                    streamVersion: statement.int64(at: 3), recordedAt: statement.int64(at: 4),
                    bytes: statement.bytes(at: 5)))
            }
            return entries
        }
    }

    public func logSequence(_ log: String, id: String) throws(StoreError) -> Int64? {
        try sequenceOfEntry(log, id: id)
    }

    public func logBounds(_ log: String) throws(StoreError) -> LogBounds {
        try run(.logBounds) { (statement) throws(StoreError) -> LogBounds in
            try statement.bind(log, at: 1)
            guard try statement.step() else { throw StoreError(.failed, "logBounds returned no row") }
            let first: Int64? = statement.isNull(at: 0) ? nil : statement.int64(at: 0)
            let last: Int64 = statement.isNull(at: 1) ? 0 : statement.int64(at: 1)
            return LogBounds(first: first, last: last)
        }
    }

    @discardableResult
    public func trimLog(_ log: String, recordedBefore: Int64, limit: Int) throws(StoreError) -> Int {
        guard limit > 0 else { return 0 }
        return try immediateTransaction { (_) throws(StoreError) -> Int in
            // The oldest `limit` entries, then the run of them recorded before the cutoff: it
            // stops at the first one that is not, however old the ones after it are.
            let (count, lastRemoved) = try run(.oldestLogEntries) { (statement) throws(StoreError) -> (Int, Int64) in
                try statement.bind(log, at: 1)
                try statement.bind(Int64(limit), at: 2)
                var count = 0
                var lastRemoved: Int64 = 0
                while try statement.step(), statement.int64(at: 1) < recordedBefore {
                    count += 1
                    lastRemoved = statement.int64(at: 0)
                }
                return (count, lastRemoved)
            }
            guard count > 0 else { return 0 }
            try run(.trimLog) { (statement) throws(StoreError) in
                try statement.bind(log, at: 1)
                try statement.bind(lastRemoved, at: 2)
                try statement.step()
            }
            return count
        }
    }

    // MARK: - Private

    private func sequenceOfEntry(_ log: String, id: String) throws(StoreError) -> Int64? {
        try run(.logSequenceOfId) { (statement) throws(StoreError) -> Int64? in
            try statement.bind(log, at: 1)
            try statement.bind(id, at: 2)
            return try statement.step() ? statement.int64(at: 0) : nil
        }
    }

    private func insert(_ entry: LogAppend, at sequence: Int64, streamVersion: Int64, into log: String) throws(StoreError) {
        try run(.insertLogEntry) { (statement) throws(StoreError) in
            try statement.bind(log, at: 1)
            try statement.bind(sequence, at: 2)
            try statement.bind(entry.id, at: 3)
            if let stream = entry.stream {
                try statement.bind(stream, at: 4)
            } else {
                try statement.bind(nil as Int64?, at: 4)
            }
            try statement.bind(streamVersion, at: 5)
            try statement.bind(entry.recordedAt, at: 6)
            try statement.bind(entry.bytes, at: 7)
            try statement.step()
        }
    }
}
