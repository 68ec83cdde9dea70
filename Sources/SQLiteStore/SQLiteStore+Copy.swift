import StorekeeperCore

/// The walk and the writes of `StoreContents` (copy-store). Each page of a walk is read in
/// one read transaction (one snapshot of the file, no lock held against writers); each write
/// is one `BEGIN IMMEDIATE` transaction, like every other write.
extension SQLiteStore: StoreContents {
    public func contents(after cursor: String?, limit: Int) throws(StoreError) -> StoreContentsPage {
        var walk = try SQLiteWalk(cursor)
        var items: [StoreItem] = []
        try readTransaction { (now) throws(StoreError) in
            while items.count < max(limit, 1), walk.phase != .done {
                let before = walk
                let room = max(limit, 1) - items.count
                let exhausted = try walkTable(&walk, room: room, now: now, into: &items)
                if exhausted { walk.advance() } else if walk == before { break }
            }
        }
        return StoreContentsPage(items: items, next: walk.encoded)
    }

    public func expiringValue(_ key: String) throws(StoreError) -> ExpiringValue? {
        try run(.expiringValue) { (statement) throws(StoreError) -> ExpiringValue? in
            try statement.bind(key, at: 1)
            try statement.bind(nowMilliseconds, at: 2)
            guard try statement.step() else { return nil }
            return ExpiringValue(bytes: statement.bytes(at: 0), expiresAt: statement.isNull(at: 1) ? nil : statement.int64(at: 1))
        }
    }

    public func missingMembers(of key: String, among members: [String]) throws(StoreError) -> [String] {
        var missing: [String] = []
        for member in members {
            let held = try run(.isMember) { (statement) throws(StoreError) -> Bool in
                try statement.bind(key, at: 1)
                try statement.bind(member, at: 2)
                return try statement.step()
            }
            if !held { missing.append(member) }
        }
        return missing
    }

    public func job(_ id: String, in queue: String) throws(StoreError) -> StoreJob? {
        let now = nowMilliseconds
        return try run(.job) { (statement) throws(StoreError) -> StoreJob? in
            try statement.bind(queue, at: 1)
            try statement.bind(id, at: 2)
            guard try statement.step() else { return nil }
            return Self.job(id: id, payload: statement.bytes(at: 0), priority: statement.int64(at: 1), visibleAt: statement.int64(at: 2),
                            attempts: statement.int64(at: 3), maxAttempts: statement.int64(at: 4), state: statement.text(at: 5),
                            enqueuedAt: statement.int64(at: 6), now: now)
        }
    }

    public func putJob(_ job: StoreJob, on queue: String) throws(StoreError) {
        try immediateTransaction { (now) throws(StoreError) in
            let (state, visibleAt): (String, Int64) = switch job.state {
            // A job ready now keeps its enqueue time as its visibility, as enqueue writes it.
            case .ready(let at): ("ready", at ?? job.enqueuedAt ?? now)
            // Never written by the copy (it writes a lease as readiness); kept exact otherwise.
            case .leased(let until): ("ready", until)
            // SQLite remembers when a job died; the model does not: 0 puts copied dead
            // letters before any that die in this store later, in the order they came.
            case .dead: ("dead", 0)
            }
            try run(.putJob) { (statement) throws(StoreError) in
                try statement.bind(queue, at: 1)
                try statement.bind(job.job.id, at: 2)
                try statement.bind(job.job.payload, at: 3)
                try statement.bind(Int64(job.job.priority), at: 4)
                try statement.bind(visibleAt, at: 5)
                try statement.bind(Int64(job.attempts), at: 6)
                try statement.bind(Int64(job.job.maxAttempts), at: 7)
                try statement.bind(state, at: 8)
                try statement.bind(job.enqueuedAt ?? now, at: 9)
                try statement.step()
            }
        }
    }

    public func putLogBounds(_ log: String, _ bounds: LogBounds) throws(StoreError) {
        try immediateTransaction { (_) throws(StoreError) in
            try run(.raiseLogSequence) { (statement) throws(StoreError) in
                try statement.bind(log, at: 1)
                try statement.bind(bounds.last, at: 2)
                try statement.step()
            }
            try run(.trimLogBelow) { (statement) throws(StoreError) in
                try statement.bind(log, at: 1)
                try statement.bind(bounds.first ?? bounds.last + 1, at: 2)
                try statement.step()
            }
        }
    }

    public func putLogStreams(_ log: String, _ versions: [LogStreamVersion]) throws(StoreError) {
        try immediateTransaction { (_) throws(StoreError) in
            for version in versions {
                try run(.setLogStreamVersion) { (statement) throws(StoreError) in
                    try statement.bind(log, at: 1)
                    try statement.bind(version.stream, at: 2)
                    try statement.bind(version.version, at: 3)
                    try statement.step()
                }
            }
        }
    }

    @discardableResult
    public func putLogEntries(_ log: String, _ entries: [LogEntry]) throws(StoreError) -> Int {
        try immediateTransaction { (_) throws(StoreError) -> Int in
            var written = 0
            for entry in entries where try putLogEntry(log, entry) { written += 1 }
            return written
        }
    }

    // MARK: - Private

    /// True when written, false when the entry was there; inside a transaction.
    private func putLogEntry(_ log: String, _ entry: LogEntry) throws(StoreError) -> Bool {
        let atSequence = try run(.logEntryIdAt) { (statement) throws(StoreError) -> String? in
            try statement.bind(log, at: 1)
            try statement.bind(entry.sequence, at: 2)
            return try statement.step() ? statement.text(at: 0) : nil
        }
        if atSequence == entry.id { return false }
        if atSequence != nil {
            throw StoreError(.failed, "log \(log) holds another entry at sequence \(entry.sequence) than the copy's \(entry.id)")
        }
        if let elsewhere = try logSequence(log, id: entry.id) {
            throw StoreError(.failed, "log \(log) holds entry \(entry.id) at sequence \(elsewhere), not \(entry.sequence)")
        }
        try run(.insertLogEntry) { (statement) throws(StoreError) in
            try statement.bind(log, at: 1)
            try statement.bind(entry.sequence, at: 2)
            try statement.bind(entry.id, at: 3)
            if let stream = entry.stream {
                try statement.bind(stream, at: 4)
            } else {
                try statement.bind(nil as Int64?, at: 4)
            }
            try statement.bind(entry.streamVersion, at: 5)
            try statement.bind(entry.recordedAt, at: 6)
            try statement.bind(entry.bytes, at: 7)
            try statement.step()
        }
        try run(.raiseLogSequence) { (statement) throws(StoreError) in
            try statement.bind(log, at: 1)
            try statement.bind(entry.sequence, at: 2)
            try statement.step()
        }
        return true
    }

    static func job(id: String, payload: [UInt8], priority: Int64, visibleAt: Int64, attempts: Int64, maxAttempts: Int64,
                    state: String, enqueuedAt: Int64, now: Int64) -> StoreJob {
        let jobState: StoreJob.State = switch state {
        case "leased": .leased(until: visibleAt)
        case "dead": .dead
        default: .ready(at: visibleAt > now ? visibleAt : nil)
        }
        return StoreJob(job: QueuedJob(id: id, payload: payload, priority: Int(priority), maxAttempts: Int(maxAttempts)),
                        attempts: Int(attempts), state: jobState, enqueuedAt: enqueuedAt)
    }

    /// `body` in one read transaction (BEGIN DEFERRED): every read sees one commit.
    private func readTransaction(_ body: (_ now: Int64) throws(StoreError) -> Void) throws(StoreError) {
        let deadline = time.monotonic() + busyTimeout
        try run(.beginRead) { (statement) throws(StoreError) in
            _ = try statement.stepRetryingBusy(until: deadline, on: time)
        }
        do throws(StoreError) {
            try body(nowMilliseconds)
            try run(.commit) { (statement) throws(StoreError) in _ = try statement.step() }
        } catch {
            if !connection.isAutocommit {
                try? run(.rollback) { (statement) throws(StoreError) in _ = try statement.step() }
            }
            throw error
        }
    }
}
