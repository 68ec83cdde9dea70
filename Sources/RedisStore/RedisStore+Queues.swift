import StorekeeperCore

/// The durable queues: each operation is one Lua script over the queue's keys (see
/// `QueueKeys` and the scripts' comments for the layout and the rules).
extension RedisStore {
    @discardableResult
    public func enqueue(_ job: QueuedJob, on queue: String) throws(StoreError) -> Bool {
        let keys = try QueueKeys(queue: queue)
        return try Self.flag(evaluate(.enqueue, keys: keys.all, arguments: Self.jobArguments(job)), "enqueue")
    }

    public func setIfAbsentAndEnqueue(_ key: String, _ value: [UInt8], expiresIn: Duration?, job: QueuedJob,
                                      on queue: String) throws(StoreError) -> Bool {
        let keys = try QueueKeys(queue: queue)
        guard QueueKeys.slotName(of: key) == keys.slotName else {
            let tag = String(decoding: keys.slotName, as: UTF8.self)
            throw StoreError(.failed, """
                setIfAbsentAndEnqueue: key '\(key)' and queue '\(queue)' must share a Redis Cluster \
                hash tag so one script can write both atomically; name the key '{\(tag)}:...'
                """)
        }
        let ttl = expiresIn.map { String(Self.milliseconds($0, minimum: 1)) } ?? ""
        let arguments = Self.jobArguments(job) + [value, Array(ttl.utf8)]
        return try Self.flag(evaluate(.setIfAbsentAndEnqueue, keys: keys.all + [key], arguments: arguments),
                             "setIfAbsentAndEnqueue")
    }

    public func claim(from queue: String, lease: Duration) throws(StoreError) -> ClaimedJob? {
        let keys = try QueueKeys(queue: queue)
        let token = Self.newLeaseToken()
        let reply = try evaluate(.claim, keys: keys.all, arguments: [
            Array(String(Self.milliseconds(lease, minimum: 1)).utf8),
            Array(token.utf8),
        ])
        if case .null = reply { return nil }
        guard case .array(let fields) = reply, fields.count == 5,
              case .string(let id) = fields[0],
              case .string(let payload) = fields[1],
              case .integer(let attempt) = fields[2],
              case .string(let maxAttempts) = fields[3],
              case .string(let priority) = fields[4],
              let maxAttemptsNumber = Int(String(decoding: maxAttempts, as: UTF8.self)),
              let priorityNumber = Int(String(decoding: priority, as: UTF8.self)) else {
            throw Self.unexpected(reply, "claim")
        }
        let job = QueuedJob(id: String(decoding: id, as: UTF8.self), payload: payload,
                            priority: priorityNumber, maxAttempts: maxAttemptsNumber)
        return ClaimedJob(queue: queue, job: job, attempt: Int(attempt), leaseToken: token)
    }

    @discardableResult
    public func acknowledge(_ job: ClaimedJob) throws(StoreError) -> Bool {
        // '-' marks "no lease" in the metadata: only a token this adapter could have made may match.
        guard Self.isLeaseToken(job.leaseToken) else { return false }
        let keys = try QueueKeys(queue: job.queue)
        return try Self.flag(evaluate(.acknowledge, keys: keys.all, arguments: [
            Array(job.job.id.utf8), Array(job.leaseToken.utf8),
        ]), "acknowledge")
    }

    @discardableResult
    public func release(_ job: ClaimedJob, retryIn: Duration) throws(StoreError) -> Bool {
        guard Self.isLeaseToken(job.leaseToken) else { return false }
        let keys = try QueueKeys(queue: job.queue)
        return try Self.flag(evaluate(.release, keys: keys.all, arguments: [
            Array(job.job.id.utf8), Array(job.leaseToken.utf8),
            Array(String(Self.milliseconds(retryIn, minimum: 0)).utf8),
        ]), "release")
    }

    public func pendingCount(in queue: String) throws(StoreError) -> Int {
        let keys = try QueueKeys(queue: queue)
        let reply = try evaluate(.pendingCount, keys: keys.all, arguments: [])
        guard case .integer(let count) = reply else { throw Self.unexpected(reply, "pendingCount") }
        return Int(count)
    }

    public func oldestPendingEnqueuedAt(in queue: String) throws(StoreError) -> Int64? {
        let keys = try QueueKeys(queue: queue)
        let reply = try evaluate(.oldestPendingEnqueuedAt, keys: keys.all, arguments: [])
        switch reply {
        case .integer(let ms): return ms
        case .null: return nil
        default: throw Self.unexpected(reply, "oldestPendingEnqueuedAt")
        }
    }

    public func deadLetters(in queue: String) throws(StoreError) -> [String] {
        let keys = try QueueKeys(queue: queue)
        return try Self.strings(run(["ZRANGE", keys.dead, "0", "-1"], "deadLetters"), "deadLetters")
    }

    // MARK: - Private

    /// ARGV[1...5] of the enqueue scripts.
    private static func jobArguments(_ job: QueuedJob) -> [[UInt8]] {
        [Array(job.id.utf8), job.payload, Array(String(job.priority).utf8), Array(String(job.maxAttempts).utf8),
         Array(priorityOrder(job.priority).utf8)]
    }

    /// 16 hex digits that sort like the priority: the sign bit flipped, so negative numbers
    /// come first and byte order equals numeric order.
    static func priorityOrder(_ priority: Int) -> String {
        hex(UInt64(bitPattern: Int64(priority)) ^ (1 << 63))
    }

    /// 128 bits from the system's CSPRNG: nobody can guess another worker's lease.
    private static func newLeaseToken() -> String {
        RandomToken.hex128()
    }

    private static func isLeaseToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: 0, count: 16)
        for index in 0..<16 {
            out[index] = digits[Int((value >> UInt64((15 - index) * 4)) & 0xF)]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
