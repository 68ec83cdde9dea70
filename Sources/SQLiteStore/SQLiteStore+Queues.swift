import StorekeeperCore

extension SQLiteStore {
    @discardableResult
    public func enqueue(_ job: QueuedJob, on queue: String) throws(StoreError) -> Bool {
        try immediateTransaction { (now) throws(StoreError) -> Bool in
            try insertJob(job, on: queue, now: now)
        }
    }

    public func setIfAbsentAndEnqueue(_ key: String, _ value: [UInt8], expiresIn: Duration?, job: QueuedJob, on queue: String) throws(StoreError) -> Bool {
        // One transaction: the key and the job are committed together or not at all.
        try immediateTransaction { (now) throws(StoreError) -> Bool in
            guard try insertIfAbsent(key, value, expiresIn: expiresIn, now: now) else { return false }
            // A job id already queued is not added twice (enqueue's deduplication), but the
            // key is still written: the caller asked for the key, and the job exists.
            _ = try insertJob(job, on: queue, now: now)
            return true
        }
    }

    public func claim(from queue: String, lease: Duration) throws(StoreError) -> ClaimedJob? {
        let token = RandomToken.hex128()
        return try immediateTransaction { (now) throws(StoreError) -> ClaimedJob? in
            // Each pass either hands out a job or dead-letters one, so the loop ends.
            while let candidate = try nextClaimable(in: queue, now: now) {
                guard candidate.attempts < candidate.job.maxAttempts else {
                    try run(.deadLetter) { (statement) throws(StoreError) in
                        try statement.bind(candidate.rowid, at: 1)
                        try statement.bind(now, at: 2)
                        try statement.step()
                    }
                    continue
                }
                try run(.lease) { (statement) throws(StoreError) in
                    try statement.bind(candidate.rowid, at: 1)
                    try statement.bind(token, at: 2)
                    try statement.bind(now.saturatingAdding(lease.wholeMilliseconds), at: 3)
                    try statement.step()
                }
                return ClaimedJob(queue: queue, job: candidate.job, attempt: Int(candidate.attempts) + 1, leaseToken: token)
            }
            return nil
        }
    }

    @discardableResult
    public func acknowledge(_ job: ClaimedJob) throws(StoreError) -> Bool {
        try immediateTransaction { (_) throws(StoreError) -> Bool in
            try run(.acknowledge) { (statement) throws(StoreError) -> Bool in
                try statement.bind(job.queue, at: 1)
                try statement.bind(job.job.id, at: 2)
                try statement.bind(job.leaseToken, at: 3)
                try statement.step()
                return connection.changes == 1
            }
        }
    }

    @discardableResult
    public func release(_ job: ClaimedJob, retryIn: Duration) throws(StoreError) -> Bool {
        try immediateTransaction { (now) throws(StoreError) -> Bool in
            try run(.release) { (statement) throws(StoreError) -> Bool in
                try statement.bind(job.queue, at: 1)
                try statement.bind(job.job.id, at: 2)
                try statement.bind(job.leaseToken, at: 3)
                try statement.bind(now, at: 4)
                try statement.bind(now.saturatingAdding(retryIn.wholeMilliseconds), at: 5)
                try statement.step()
                return connection.changes == 1
            }
        }
    }

    public func pendingCount(in queue: String) throws(StoreError) -> Int {
        try run(.pendingCount) { (statement) throws(StoreError) -> Int in
            try statement.bind(queue, at: 1)
            try statement.step()
            return Int(statement.int64(at: 0))
        }
    }

    public func oldestPendingEnqueuedAt(in queue: String) throws(StoreError) -> Int64? {
        try run(.oldestPendingEnqueuedAt) { (statement) throws(StoreError) -> Int64? in
            try statement.bind(queue, at: 1)
            try statement.step()
            return statement.isNull(at: 0) ? nil : statement.int64(at: 0)
        }
    }

    public func deadLetters(in queue: String) throws(StoreError) -> [String] {
        try run(.deadLetters) { (statement) throws(StoreError) -> [String] in
            try statement.bind(queue, at: 1)
            var ids: [String] = []
            while try statement.step() { ids.append(statement.text(at: 0)) }
            return ids
        }
    }

    // MARK: Inside a transaction

    private func insertJob(_ job: QueuedJob, on queue: String, now: Int64) throws(StoreError) -> Bool {
        try run(.enqueue) { (statement) throws(StoreError) -> Bool in
            try statement.bind(queue, at: 1)
            try statement.bind(job.id, at: 2)
            try statement.bind(job.payload, at: 3)
            try statement.bind(Int64(job.priority), at: 4)
            try statement.bind(now, at: 5)
            try statement.bind(Int64(job.maxAttempts), at: 6)
            try statement.step()
            return connection.changes == 1
        }
    }

    private func nextClaimable(in queue: String, now: Int64) throws(StoreError) -> (rowid: Int64, attempts: Int64, job: QueuedJob)? {
        try run(.nextClaimable) { (statement) throws(StoreError) -> (rowid: Int64, attempts: Int64, job: QueuedJob)? in
            try statement.bind(queue, at: 1)
            try statement.bind(now, at: 2)
            guard try statement.step() else { return nil }
            let job = QueuedJob(id: statement.text(at: 1), payload: statement.bytes(at: 2),
                                priority: Int(statement.int64(at: 3)), maxAttempts: Int(statement.int64(at: 5)))
            return (rowid: statement.int64(at: 0), attempts: statement.int64(at: 4), job: job)
        }
    }
}
