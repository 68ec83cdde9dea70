import FoundationEssentials
import StorekeeperCore

/// copy-store's walk and writes (`StoreContents`) over the layout in `RedisStore`'s table.
/// The walk is one method, `contents(after:limit:)`, over SCAN (never KEYS: the server never
/// builds the whole key list, and answers other clients between batches), run on each primary
/// of a Redis Cluster in turn (a primary's SCAN sees its own keys only). Do not reshard a
/// cluster during a copy: a slot moved mid-walk may be walked twice or not at all. Queues and logs are read back as logical jobs and
/// entries, not as raw keys, so an SQLite store can take them in.
extension RedisStore: StoreContents {
    public func contents(after cursor: String?, limit: Int) throws(StoreError) -> StoreContentsPage {
        var walk = try RedisWalk(cursor)
        var items: [StoreItem] = []
        let limit = max(limit, 1)
        while true {
            guard let (next, batch) = try scan(walk.scan, onPrimary: walk.node ?? 0) else {
                // Past the last primary: every node was walked.
                return StoreContentsPage(items: items, next: nil)
            }
            for key in batch where walk.key.map({ !key.utf8.lexicographicallyPrecedes($0.utf8) }) ?? true {
                if walk.key != key { walk = walk.at(key, part: 0, sub: "") }
                while try emit(key, &walk, room: limit - items.count, into: &items) {
                    // The key has more; a full page stops inside it, where the next page resumes.
                    if items.count >= limit { return StoreContentsPage(items: items, next: walk.encoded) }
                }
                walk.key = nil
                if items.count >= limit, key != batch.last {
                    // Resume at the next key of this batch (the ones before it are done).
                    let following = batch[(batch.firstIndex(of: key) ?? 0) + 1]
                    return StoreContentsPage(items: items, next: walk.at(following, part: 0, sub: "").encoded)
                }
            }
            let node = walk.node ?? 0
            walk = RedisWalk()
            if next == "0" {
                // This server's keys are done; a cluster's next primary follows.
                walk.node = node + 1
            } else {
                walk.node = node == 0 ? nil : node
                walk.scan = next
            }
            if items.count >= limit { return StoreContentsPage(items: items, next: walk.encoded) }
        }
    }

    public func expiringValue(_ key: String) throws(StoreError) -> ExpiringValue? {
        guard case .value(let bytes, let ttl) = try role(of: key) else { return nil }
        return ExpiringValue(bytes: bytes, expiresAt: Self.expiry(ttl))
    }

    public func missingMembers(of key: String, among members: [String]) throws(StoreError) -> [String] {
        guard !members.isEmpty else { return [] }
        return try Self.strings(evaluate(.missingMembers, keys: [key], arguments: members.map { Array($0.utf8) }), "missingMembers")
    }

    public func job(_ id: String, in queue: String) throws(StoreError) -> StoreJob? {
        let keys = try QueueKeys(queue: queue)
        let reply = try evaluate(.readJob, keys: keys.all, arguments: [Array(id.utf8)])
        if case .null = reply { return nil }
        guard case .array(let fields) = reply, fields.count == 6,
              case .string(let payload) = fields[0], case .string(let meta) = fields[1], case .integer(let dead) = fields[2],
              case .string(let waiting) = fields[3], case .string(let enqueued) = fields[4], case .string(let now) = fields[5],
              let parsed = Self.jobMeta(meta), let nowMs = Self.number(now) else {
            throw Self.unexpected(reply, "readJob")
        }
        let waitingAt = Self.number(waiting)
        let state: StoreJob.State = if dead == 1 {
            .dead
        } else if let waitingAt {
            parsed.leased ? .leased(until: waitingAt) : .ready(at: waitingAt > nowMs ? waitingAt : nil)
        } else {
            .ready(at: nil)
        }
        return StoreJob(job: QueuedJob(id: id, payload: payload, priority: parsed.priority, maxAttempts: parsed.maxAttempts),
                        attempts: parsed.attempts, state: state, enqueuedAt: Self.number(enqueued))
    }

    public func putJob(_ job: StoreJob, on queue: String) throws(StoreError) {
        let keys = try QueueKeys(queue: queue)
        let (place, score): (String, Int64) = switch job.state {
        case .ready(let at?): ("waiting", at)
        case .ready(nil): ("ready", 0)
        // Never a lease (see StoreContents): the time it ends, as a readiness.
        case .leased(let until): ("waiting", until)
        case .dead: ("dead", 0)
        }
        let arguments = [job.job.id, nil, String(job.job.priority), String(job.job.maxAttempts),
                         Self.priorityOrder(job.job.priority), String(job.attempts), place, String(score),
                         job.enqueuedAt.map(String.init) ?? ""].map { $0.map { Array($0.utf8) } ?? job.job.payload }
        _ = try evaluate(.putJob, keys: keys.all, arguments: arguments)
    }

    public func putLogBounds(_ log: String, _ bounds: LogBounds) throws(StoreError) {
        let keys = try LogKeys(log: log)
        let trimmed = (bounds.first ?? bounds.last + 1) - 1
        _ = try evaluate(.putLogBounds, keys: keys.all, arguments: [Array(String(bounds.last).utf8), Array(String(trimmed).utf8)])
    }

    public func putLogStreams(_ log: String, _ versions: [LogStreamVersion]) throws(StoreError) {
        guard !versions.isEmpty else { return }
        let keys = try LogKeys(log: log)
        _ = try run(["HSET", keys.streams] + versions.flatMap { [$0.stream, String($0.version)] }, "putLogStreams")
    }

    @discardableResult
    public func putLogEntries(_ log: String, _ entries: [LogEntry]) throws(StoreError) -> Int {
        guard !entries.isEmpty else { return 0 }
        let keys = try LogKeys(log: log)
        let arguments = entries.flatMap { entry in
            [Array(String(entry.sequence).utf8), Array(entry.id.utf8),
             Self.logMeta(id: entry.id, stream: entry.stream, streamVersion: entry.streamVersion, recordedAt: entry.recordedAt), entry.bytes]
        }
        guard case .integer(let written) = try evaluate(.putLogEntries, keys: keys.all, arguments: arguments) else {
            throw StoreError(.failed, "putLogEntries: Redis answered no count")
        }
        return Int(written)
    }
}

// MARK: - The walk's steps

extension RedisStore {
    /// Emits the next items of `key` (at most `room`) from where `walk` stands in it; true
    /// while the key has more.
    private func emit(_ key: String, _ walk: inout RedisWalk, room: Int, into items: inout [StoreItem]) throws(StoreError) -> Bool {
        switch try role(of: key) {
        case .value(let bytes, let ttl):
            // -2: it expired since SCAN named it.
            if ttl != -2 { items.append(.value(key: key, bytes: bytes, expiresAt: Self.expiry(ttl))) }
            return false
        case .set:
            return try emitMembers(key, &walk, into: &items)
        case .queue(let queue):
            return try emitJobs(queue, &walk, room: max(room, 1), into: &items)
        case .log(let log):
            return try emitLog(log, &walk, into: &items)
        case .part, .gone:
            return false
        }
    }

    private func emitMembers(_ key: String, _ walk: inout RedisWalk, into items: inout [StoreItem]) throws(StoreError) -> Bool {
        let (next, members) = try scanCollection(["SSCAN", key, walk.sub.isEmpty ? "0" : walk.sub], "SSCAN")
        if !members.isEmpty { items.append(.setMembers(key: key, members: members.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })) }
        walk.sub = next
        return next != "0"
    }

    /// The pending jobs (ready, and waiting: leased or backing off) in claim order, priority
    /// then enqueue order, as one sequence; then the dead letters, oldest first. Copied in that
    /// order, the target hands out its jobs in the order the source would have. Ready members
    /// are read by their order (ZRANGEBYLEX after the last given out: all their scores are 0);
    /// the waiting jobs, few (the ones workers hold or that back off), are read whole each page.
    private func emitJobs(_ queue: String, _ walk: inout RedisWalk, room: Int, into items: inout [StoreItem]) throws(StoreError) -> Bool {
        let keys = try QueueKeys(queue: queue)
        let count = min(room, RedisWalk.batch)
        guard walk.part == 0 else {
            let offset = Int(walk.sub) ?? 0
            let dead = try Self.strings(run(["ZRANGE", keys.dead, String(offset), String(offset + count - 1)], "ZRANGE"), "ZRANGE")
            for id in dead { if let job = try job(id, in: queue) { items.append(.job(queue: queue, job: job)) } }
            walk.sub = String(offset + dead.count)
            return dead.count == count
        }
        let after = walk.sub
        let ready = try Self.strings(run(["ZRANGEBYLEX", keys.ready, after.isEmpty ? "-" : "(" + after, "+", "LIMIT", "0", String(count)],
                                         "ZRANGEBYLEX"), "ZRANGEBYLEX")
        let waiting = try waitingMembers(keys).filter { after.utf8.lexicographicallyPrecedes($0.utf8) }
        let next = (ready + waiting).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.prefix(count)
        for member in next {
            // A member is the job's 32-digit order, then its id.
            let id = String(decoding: Array(member.utf8).dropFirst(32), as: UTF8.self)
            if let job = try job(id, in: queue) { items.append(.job(queue: queue, job: job)) }
        }
        if let last = next.last { walk.sub = last }
        if next.count < count {
            walk.part = 1
            walk.sub = ""
        }
        return true
    }

    /// The waiting jobs as ready members would name them: order, then id.
    private func waitingMembers(_ keys: QueueKeys) throws(StoreError) -> [String] {
        let ids = try Self.strings(run(["ZRANGE", keys.waiting, "0", "-1"], "ZRANGE"), "ZRANGE")
        guard !ids.isEmpty else { return [] }
        guard case .array(let metas) = try run(["HMGET", keys.meta] + ids, "HMGET"), metas.count == ids.count else {
            throw StoreError(.failed, "HMGET: Redis answered no metadata for the waiting jobs")
        }
        return zip(ids, metas).compactMap { id, meta in
            guard case .string(let bytes) = meta, let order = Self.jobMeta(bytes)?.order else { return nil }
            return order + id
        }
    }

    private func emitLog(_ log: String, _ walk: inout RedisWalk, into items: inout [StoreItem]) throws(StoreError) -> Bool {
        switch walk.part {
        case 0:
            items.append(.logBounds(log: log, bounds: try logBounds(log)))
            walk.part = 1
            return true
        case 1:
            let keys = try LogKeys(log: log)
            let (next, fields) = try scanCollection(["HSCAN", keys.streams, walk.sub.isEmpty ? "0" : walk.sub], "HSCAN")
            var versions: [LogStreamVersion] = []
            for index in stride(from: 0, to: fields.count - 1, by: 2) {
                versions.append(LogStreamVersion(stream: fields[index], version: Int64(fields[index + 1]) ?? 0))
            }
            if !versions.isEmpty { items.append(.logStreams(log: log, versions: versions)) }
            walk.sub = next
            if next == "0" { walk.part = 2; walk.sub = "" }
            return true
        default:
            let entries = try readLog(log, after: Int64(walk.sub) ?? 0, limit: RedisWalk.batch)
            if let last = entries.last {
                items.append(.logEntries(log: log, entries: entries))
                walk.sub = String(last.sequence)
            }
            return entries.count == RedisWalk.batch
        }
    }

    /// What `key` is, by its type and name (see `RedisKeyRole`); one round trip for most keys.
    private func role(of key: String) throws(StoreError) -> RedisKeyRole {
        let reply = try evaluate(.describeKey, keys: [key], arguments: [])
        guard case .array(let fields) = reply, case .string(let kind)? = fields.first else { throw Self.unexpected(reply, "describeKey") }
        switch String(decoding: kind, as: UTF8.self) {
        case "hash" where fields.count == 3:
            guard case .string(let bytes) = fields[1], case .integer(let ttl) = fields[2] else { throw Self.unexpected(reply, "describeKey") }
            return .value(bytes: bytes, timeToLive: ttl)
        case "set": return .set
        case "none": return .gone
        case "string":
            if let queue = RedisKeyRole.base(of: key, ":sequence") { return .queue(queue) }
            if let log = RedisKeyRole.base(of: key, ":last") { return .log(log) }
            if try isPart(key, of: RedisKeyRole.logParts, anchor: ":last") { return .part }
        default:
            if try isPart(key, of: RedisKeyRole.queueParts, anchor: ":sequence") { return .part }
            if try isPart(key, of: RedisKeyRole.logParts, anchor: ":last") { return .part }
        }
        // Nothing this adapter writes: a copy that skipped it would lose it without a word.
        throw StoreError(.failed, "copy-store: the key '\(key)' (a Redis \(String(decoding: kind, as: UTF8.self))) was not written by Storekeeper; the database must be Storekeeper's alone")
    }

    private func isPart(_ key: String, of suffixes: [String], anchor: String) throws(StoreError) -> Bool {
        for suffix in suffixes {
            guard let base = RedisKeyRole.base(of: key, suffix) else { continue }
            if try Self.flag(run(["EXISTS", base + anchor], "EXISTS"), "EXISTS") { return true }
        }
        return false
    }

    /// One SCAN batch of the `primary`th primary (the one server: 0): the next cursor and the
    /// keys, in byte order; nil past the last primary.
    private func scan(_ cursor: String, onPrimary primary: Int) throws(StoreError) -> (String, [String])? {
        guard let reply = try runOnPrimary(at: primary, ["SCAN", cursor, "COUNT", String(RedisWalk.batch)], "SCAN") else {
            return nil
        }
        let (next, keys) = try Self.scanReply(reply, "SCAN")
        return (next, keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    /// A SCAN-family reply: { next cursor, [elements] } (SSCAN of a missing key is empty).
    private func scanCollection(_ command: [String], _ operation: String) throws(StoreError) -> (String, [String]) {
        try Self.scanReply(run(command + ["COUNT", String(RedisWalk.batch)], operation), operation)
    }

    private static func scanReply(_ reply: RedisValue, _ operation: String) throws(StoreError) -> (String, [String]) {
        guard case .array(let parts) = reply, parts.count == 2, case .string(let next) = parts[0] else {
            throw unexpected(reply, operation)
        }
        return (String(decoding: next, as: UTF8.self), try strings(parts[1], operation))
    }

    /// PTTL's answer as an absolute time by this machine's wall clock (the copy's clock), so
    /// the target gets the same expiry however long the copy takes; -1 (none) is nil.
    static func expiry(_ timeToLive: Int64) -> Int64? {
        timeToLive < 0 ? nil : SystemTime().realNow().millisecondsSince1970 + timeToLive
    }

    /// A whole number from a reply's decimal (a ZSCORE is a float's text); nil for ''.
    static func number(_ bytes: [UInt8]) -> Int64? {
        let text = String(decoding: bytes, as: UTF8.self)
        return Int64(text) ?? Double(text).map { Int64($0) }
    }

    /// "<attempts> <maxAttempts> <priority> <order> <token>" (RedisScript+Catalogue).
    static func jobMeta(_ bytes: [UInt8]) -> (attempts: Int, maxAttempts: Int, priority: Int, order: String, leased: Bool)? {
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard fields.count == 5, let attempts = Int(fields[0]), let maxAttempts = Int(fields[1]), let priority = Int(fields[2]) else { return nil }
        return (attempts, maxAttempts, priority, String(fields[3]), fields[4] != "-")
    }
}
