/// Whether another store holds an item as it is (`StoreItem`), for the copy (an item the
/// target already holds is not written again) and for the verification (both directions).
/// Times compare within `tolerance` ms: two stores' clocks, and the moments a walk reads
/// them, differ by a little.
struct StoreComparison {
    let now: Int64
    let tolerance: Int64

    /// nil when `other` holds `item` exactly; else what differs, in a few words.
    func difference(_ item: StoreItem, in other: any StoreContents) throws(StoreError) -> String? {
        switch item {
        case .value(let key, let bytes, let expiresAt):
            guard let found = try other.expiringValue(key) else { return "missing" }
            guard found.bytes == bytes else { return "bytes differ" }
            return sameExpiry(expiresAt, found.expiresAt) ? nil : "expiry differs"
        case .setMembers(let key, let members):
            let missing = try other.missingMembers(of: key, among: members)
            return missing.isEmpty ? nil : "\(missing.count) of \(members.count) members missing"
        case .job(let queue, let job):
            guard let found = try other.job(job.job.id, in: queue) else { return "missing" }
            return jobDifference(job, found)
        case .logBounds(let log, let bounds):
            let found = try other.logBounds(log)
            return found == bounds ? nil : "bounds \(found.first.map(String.init) ?? "none")...\(found.last), not \(bounds.first.map(String.init) ?? "none")...\(bounds.last)"
        case .logStreams(let log, let versions):
            var differing = 0
            for version in versions where try other.logStreamVersion(log, stream: version.stream) != version.version { differing += 1 }
            return differing == 0 ? nil : "\(differing) of \(versions.count) stream versions differ"
        case .logEntries(let log, let entries):
            return try entriesDifference(log, entries, in: other)
        }
    }

    /// Existence only, for the second direction of a verification (is the item of the target
    /// in the source at all?): what differs in content the first direction has reported.
    func absence(_ item: StoreItem, in other: any StoreContents) throws(StoreError) -> String? {
        switch item {
        case .value(let key, _, _):
            return try other.expiringValue(key) == nil ? "only in the target" : nil
        case .setMembers(let key, let members):
            let missing = try other.missingMembers(of: key, among: members)
            return missing.isEmpty ? nil : "\(missing.count) members only in the target"
        case .job(let queue, let job):
            return try other.job(job.job.id, in: queue) == nil ? "only in the target" : nil
        case .logBounds(let log, _):
            return try other.logBounds(log).last == 0 ? "only in the target" : nil
        case .logStreams(let log, let versions):
            var absent = 0
            for version in versions where try other.logStreamVersion(log, stream: version.stream) == 0 { absent += 1 }
            return absent == 0 ? nil : "\(absent) streams only in the target"
        case .logEntries(let log, let entries):
            return try entriesDifference(log, entries, in: other)
        }
    }

    /// The job as the copy writes it: a lease becomes a readiness when the lease ends (the
    /// worker holding it works on the source; if it finishes there, the copy of a live store
    /// is run again; if it dies, the job comes back on time in the target, as in the source).
    static func copied(_ job: StoreJob) -> StoreJob {
        guard case .leased(let until) = job.state else { return job }
        var copy = job
        copy.state = .ready(at: until)
        return copy
    }

    func jobDifference(_ expected: StoreJob, _ found: StoreJob) -> String? {
        guard expected.job == found.job else { return "payload, priority or attempts allowed differ" }
        guard expected.attempts == found.attempts else { return "attempts \(found.attempts), not \(expected.attempts)" }
        if let a = expected.enqueuedAt, let b = found.enqueuedAt, abs(a - b) > tolerance { return "enqueue time differs" }
        switch (expected.state, found.state) {
        case (.dead, .dead): return nil
        case (.dead, _), (_, .dead): return "dead in one store only"
        default:
            // Claimable now, or at a time: a lease compares as the readiness it is copied as.
            let a = max(expected.claimableAt ?? now, now)
            let b = max(found.claimableAt ?? now, now)
            return abs(a - b) <= tolerance ? nil : "claimable at \(b), not \(a)"
        }
    }

    private func sameExpiry(_ a: Int64?, _ b: Int64?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): abs(a - b) <= tolerance
        default: false
        }
    }

    private func entriesDifference(_ log: String, _ entries: [LogEntry], in other: any StoreContents) throws(StoreError) -> String? {
        guard let first = entries.first else { return nil }
        let found: [LogEntry]
        do {
            found = try other.readLog(log, after: first.sequence - 1, limit: entries.count)
        } catch where error.kind == .failed {
            // Redis refuses to read a log with a hole in it: that is this difference.
            return "entries missing"
        }
        return found == entries ? nil : "entries differ"
    }
}
