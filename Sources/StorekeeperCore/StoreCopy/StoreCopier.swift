import FoundationEssentials

/// Copies every item of one store into another (`StoreContents`), resumably, and verifies
/// that both hold the same: `copy-store`'s work. The source is only read; the target holds
/// the copy's progress (`StoreKeys.copyProgress`), which neither the copy nor the
/// verification counts as content.
public struct StoreCopier {
    /// Items per page: each page is one read of the source and one save of the progress.
    public static let pageSize = 200
    /// How far apart two stores' times may be and still count as the same (clocks, and the
    /// moments a walk reads each store).
    public static let tolerance: Int64 = 2_000

    let source: any StoreContents
    let target: any StoreContents
    /// Names the source for the saved progress (a digest of its location, never a password).
    let sourceIdentity: String
    let time: any TimeSource

    public init(source: any StoreContents, target: any StoreContents, sourceIdentity: String, time: any TimeSource) {
        self.source = source
        self.target = target
        self.sourceIdentity = sourceIdentity
        self.time = time
    }

    private var now: Int64 { time.realNow().millisecondsSince1970 }
    private var comparison: StoreComparison { StoreComparison(now: now, tolerance: Self.tolerance) }

    static func isOwn(_ item: StoreItem) -> Bool {
        if case .value(let key, _, _) = item { return key == StoreKeys.copyProgress }
        return false
    }

    /// One whole pass, from the saved progress when there is one of this source. The
    /// progress is saved after each page's items are written, so a kill costs at most one
    /// page again; it is removed once the pass is over.
    public func copy() throws(StoreError) -> StoreCopyResult {
        let saved = try savedProgress()
        var progress = saved ?? StoreCopyProgress(source: sourceIdentity)
        while true {
            let page = try source.contents(after: progress.cursor, limit: Self.pageSize)
            for item in page.items where !Self.isOwn(item) {
                try copy(item, into: &progress)
            }
            progress.pages += 1
            progress.cursor = page.next
            guard page.next != nil else { break }
            try save(progress)
        }
        try target.delete(StoreKeys.copyProgress)
        return StoreCopyResult(copied: progress.copied, skipped: progress.skipped, expired: progress.expired,
                               pages: progress.pages, resumed: saved != nil)
    }

    private func copy(_ item: StoreItem, into progress: inout StoreCopyProgress) throws(StoreError) {
        let comparison = comparison
        switch item {
        case .value(let key, let bytes, let expiresAt):
            if let expiresAt, expiresAt <= comparison.now {
                progress.expired += 1
            } else if try comparison.difference(item, in: target) == nil {
                progress.skipped.values += 1
            } else {
                // The same absolute expiry: what is left of it now, not what was left when read.
                try target.set(key, bytes, expiresIn: expiresAt.map { .milliseconds(max($0 - now, 1)) })
                progress.copied.values += 1
            }
        case .setMembers(let key, let members):
            let missing = try target.missingMembers(of: key, among: members)
            for member in missing { try target.addToSet(key, member) }
            progress.copied.setMembers += missing.count
            progress.skipped.setMembers += members.count - missing.count
        case .job(let queue, let job):
            let copied = StoreComparison.copied(job)
            if let found = try target.job(job.job.id, in: queue), comparison.jobDifference(copied, found) == nil {
                progress.skipped.jobs += 1
            } else {
                try target.putJob(copied, on: queue)
                progress.copied.jobs += 1
            }
        case .logBounds(let log, let bounds):
            if try target.logBounds(log) != bounds { try target.putLogBounds(log, bounds) }
        case .logStreams(let log, let versions):
            var differing: [LogStreamVersion] = []
            for version in versions where try target.logStreamVersion(log, stream: version.stream) != version.version {
                differing.append(version)
            }
            if !differing.isEmpty { try target.putLogStreams(log, differing) }
            progress.copied.logStreams += differing.count
            progress.skipped.logStreams += versions.count - differing.count
        case .logEntries(let log, let entries):
            let written = try target.putLogEntries(log, entries)
            progress.copied.logEntries += written
            progress.skipped.logEntries += entries.count - written
        }
    }

    /// Walks the source and looks for each item in the target, then walks the target and
    /// looks for each item in the source, writing nothing. Keeps the first `limit`
    /// differences and counts them all.
    public func verify(limit: Int) throws(StoreError) -> StoreVerification {
        var verification = StoreVerification(compared: 0, differences: [], differenceCount: 0)
        var reported: Set<String> = []
        for (walked, other, forward) in [(source, target, true), (target, source, false)] {
            var cursor: String?
            repeat {
                let page = try walked.contents(after: cursor, limit: Self.pageSize)
                let comparison = comparison
                for item in page.items where !Self.isOwn(item) {
                    verification.compared += 1
                    let found = forward ? try comparison.difference(item, in: other) : try comparison.absence(item, in: other)
                    guard let found, !reported.contains(item.name) else { continue }
                    verification.differenceCount += 1
                    if verification.differences.count < limit {
                        reported.insert(item.name)
                        verification.differences.append(StoreDifference(item: item.name, difference: (forward ? "target: " : "source: ") + found))
                    }
                }
                cursor = page.next
            } while cursor != nil
        }
        return verification
    }

    private func savedProgress() throws(StoreError) -> StoreCopyProgress? {
        guard let stored = try target.get(StoreKeys.copyProgress),
              let progress = try? JSONDecoder().decode(StoreCopyProgress.self, from: Data(stored.bytes)),
              progress.source == sourceIdentity, progress.cursor != nil else { return nil }
        return progress
    }

    private func save(_ progress: StoreCopyProgress) throws(StoreError) {
        guard let bytes = try? JSONEncoder().encode(progress) else {
            throw StoreError(.failed, "copy-store: the progress does not encode")
        }
        // A week: a copy abandoned for longer starts over rather than trust an old cursor.
        try target.set(StoreKeys.copyProgress, Array(bytes), expiresIn: .seconds(7 * 86_400))
    }
}
