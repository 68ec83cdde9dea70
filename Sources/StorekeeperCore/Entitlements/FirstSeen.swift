/// When Storekeeper first saw a condition that still holds (auto-renew turned off, Apple
/// retrying a failed charge): the customer answer's `unsubscribeDetectedAt` and
/// `billingIssueDetectedAt`.
///
/// Times are Apple's signing times of the renewal info that said so, and the value is merged
/// like every other fact: whatever order the renewal infos arrive in, `since` is the earliest
/// time the condition was seen after the newest time it was seen not holding.
public struct FirstSeen: Codable, Sendable, Equatable, Hashable {
    /// Times kept while the condition holds; only the earliest matters, the rest wait in case
    /// a late "does not hold" removes the earliest.
    static let limit = 32

    /// The newest signing time at which the condition did not hold.
    public var clearedAt: Int64?
    /// Signing times after `clearedAt` at which it held, earliest first.
    public var seenAt: [Int64]

    public init(clearedAt: Int64? = nil, seenAt: [Int64] = []) {
        self.clearedAt = clearedAt
        self.seenAt = seenAt
    }

    /// Since when the condition holds, or nil when it does not (as far as Apple said).
    public var since: Int64? { seenAt.first }

    mutating func observe(holds: Bool, at time: Int64) {
        if holds {
            guard clearedAt.map({ time > $0 }) ?? true, !seenAt.contains(time) else { return }
            seenAt.append(time)
            seenAt.sort()
            if seenAt.count > Self.limit { seenAt.removeLast() }
        } else {
            guard clearedAt.map({ time > $0 }) ?? true else { return }
            clearedAt = time
            seenAt.removeAll { $0 <= time }
        }
    }
}
