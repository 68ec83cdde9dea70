/// What one `reconcile` run did, as cron mails it or a monitor reads it.
public struct ReconciliationReport: Codable, Sendable, Equatable {
    /// Which selection was walked ("attention", "all", "list-…").
    public var selection: String
    /// The cursor this run continued from, when it resumed an unfinished run.
    public var resumedAfter: String?
    /// Subscribers left to walk when this run began, and how many it walked.
    public var total = 0
    public var done = 0
    /// Subscribers Apple was asked about.
    public var asked = 0
    /// Asked, and Apple agreed with what was stored.
    public var unchanged = 0
    /// Stored status differed from Apple's, by kind ("expired→active"): each one is a lost
    /// notification.
    public var corrected: [String: Int] = [:]
    /// No usable answer, by cause (Apple's error name, `not_found`, a verification code).
    public var failed: [String: Int] = [:]
    /// Times a process waited on the shared rate limit or on Apple's Retry-After.
    public var rateLimitedWaits = 0
    /// The time budget ran out; the next run resumes at the cursor.
    public var outOfTime = false
    /// Why the walk stopped early, when it did: "apple_unavailable" after several subscribers
    /// in a row got no answer. The next run resumes at the first of them.
    public var stoppedBy: String?

    public init(selection: String) {
        self.selection = selection
    }

    public var correctedTotal: Int { corrected.values.reduce(0, +) }
    public var failedTotal: Int { failed.values.reduce(0, +) }

    mutating func count(failure code: String) {
        failed[code, default: 0] += 1
    }
}
