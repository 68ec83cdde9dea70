import StorekeeperCore

extension SQLiteStore {
    public func get(_ key: String) throws(StoreError) -> StoredValue? {
        try run(.get) { (statement) throws(StoreError) -> StoredValue? in
            try statement.bind(key, at: 1)
            try statement.bind(nowMilliseconds, at: 2)
            guard try statement.step() else { return nil }
            return StoredValue(bytes: statement.bytes(at: 0), version: statement.int64(at: 1))
        }
    }

    public func set(_ key: String, _ value: [UInt8], expiresIn: Duration?) throws(StoreError) {
        try immediateTransaction { (now) throws(StoreError) in
            try run(.set) { (statement) throws(StoreError) in
                try statement.bind(key, at: 1)
                try statement.bind(value, at: 2)
                try statement.bind(Self.milliseconds(after: expiresIn, from: now), at: 3)
                try statement.step()
            }
            try sweepExpiredKeysNowAndThen(now)
        }
    }

    @discardableResult
    public func delete(_ key: String) throws(StoreError) -> Bool {
        try immediateTransaction { (now) throws(StoreError) -> Bool in
            try run(.delete) { (statement) throws(StoreError) -> Bool in
                try statement.bind(key, at: 1)
                try statement.bind(now, at: 2)
                try statement.step()
                return connection.changes == 1
            }
        }
    }

    public func setIfAbsent(_ key: String, _ value: [UInt8], expiresIn: Duration?) throws(StoreError) -> Bool {
        try immediateTransaction { (now) throws(StoreError) -> Bool in
            let written = try insertIfAbsent(key, value, expiresIn: expiresIn, now: now)
            if written { try sweepExpiredKeysNowAndThen(now) }
            return written
        }
    }

    public func compareAndSet(_ key: String, _ value: [UInt8], expectedVersion: Int64?, expiresIn: Duration?) throws(StoreError) -> Bool {
        guard let expectedVersion else {
            return try setIfAbsent(key, value, expiresIn: expiresIn)
        }
        return try immediateTransaction { (now) throws(StoreError) -> Bool in
            try run(.compareAndSet) { (statement) throws(StoreError) -> Bool in
                try statement.bind(key, at: 1)
                try statement.bind(value, at: 2)
                try statement.bind(Self.milliseconds(after: expiresIn, from: now), at: 3)
                try statement.bind(expectedVersion, at: 4)
                try statement.bind(now, at: 5)
                try statement.step()
                return connection.changes == 1
            }
        }
    }

    /// The write shared by `setIfAbsent` and `setIfAbsentAndEnqueue`; call inside a transaction.
    func insertIfAbsent(_ key: String, _ value: [UInt8], expiresIn: Duration?, now: Int64) throws(StoreError) -> Bool {
        try run(.setIfAbsent) { (statement) throws(StoreError) -> Bool in
            try statement.bind(key, at: 1)
            try statement.bind(value, at: 2)
            try statement.bind(Self.milliseconds(after: expiresIn, from: now), at: 3)
            try statement.bind(now, at: 4)
            try statement.step()
            return connection.changes == 1
        }
    }

    /// Expired rows are invisible but take space (deduplication keys, caches); about one write
    /// in 64 also removes up to 256 of them, inside the transaction it already holds.
    private func sweepExpiredKeysNowAndThen(_ now: Int64) throws(StoreError) {
        var generator = SystemRandomNumberGenerator()
        guard generator.next(upperBound: UInt8(64)) == 0 else { return }
        try run(.sweepExpired) { (statement) throws(StoreError) in
            try statement.bind(now, at: 1)
            try statement.step()
        }
    }
}
