/// What `import-customers` found for one line of its input, as the report answers it and as a
/// run keeps it in the store (`StoreKeys.customerImportLine`) for the report of a run that
/// resumes it.
public struct CustomerImportLineResult: StoreRecord, Sendable, Equatable, Encodable {
    /// The verdict, one word a script can count.
    public enum Result: String, Codable, Sendable, CaseIterable {
        /// The purchase is the user's now (and was backfilled from Apple).
        case linked
        /// Apple does not know the original transaction id (in any accepted environment).
        case notFound = "not_found"
        /// Another user owned the purchase first: it stays theirs (an import never moves one).
        case alreadyLinkedToAnotherUser = "already_linked_to_another_user"
        /// The line cannot be imported as written (`reason` says why); Apple was not asked.
        case invalidLine = "invalid_line"
        /// Apple refused the id, or its signed answer failed verification (`code`).
        case rejected
    }

    /// A purchase Apple's answers named: the line's own, and the customer's others.
    public struct Subscription: Codable, Sendable, Equatable {
        public var originalTransactionId: String
        public var productId: String?
        /// The entitlement's status now (`EntitlementStatus`); nil without a record.
        public var status: String?
        /// Whether it belongs to the line's user after the import.
        public var linkedToUser: Bool?
        /// Why Apple's answer about it was not applied, when it was not.
        public var failure: String?
    }

    public var source: CustomerImportLine.Source
    public var line: Int
    public var userId: String
    public var originalTransactionId: String
    public var bundleId: String?
    public var result: Result
    /// Transactions of the customer's purchases stored now that were not before (0 on a
    /// rerun once Apple's answers are in).
    public var transactionsBackfilled: Int
    /// Whether the line's purchase was already the user's before this line was imported.
    public var alreadyLinked: Bool?
    public var subscriptions: [Subscription]
    /// Apple's error name or the verification code of a rejected line.
    public var code: String?
    public var reason: String?
    /// Set in a report when an earlier run of the same input found this (not stored).
    public var fromEarlierRun: Bool?

    init(_ line: CustomerImportLine, result: Result, transactionsBackfilled: Int = 0, alreadyLinked: Bool? = nil,
         subscriptions: [Subscription] = [], code: String? = nil, reason: String? = nil) {
        source = line.source
        self.line = line.line
        userId = line.userId
        originalTransactionId = line.originalTransactionId
        bundleId = line.bundleId
        self.result = result
        self.transactionsBackfilled = transactionsBackfilled
        self.alreadyLinked = alreadyLinked
        self.subscriptions = subscriptions
        self.code = code
        self.reason = reason
    }
}

/// How far a run of one input came, at `StoreKeys.customerImport`: the next line to do
/// (0-based position in the input) and when the first run of it began. Saved after every line,
/// so a killed run resumes at the line it was on (Apple's answers applied twice change nothing).
/// Kept when the run finished, so a rerun answers from the store and asks Apple nothing.
struct CustomerImportCursor: StoreRecord, Equatable {
    var next: Int
    var total: Int
    var startedAt: Int64

    static let lifetime: Duration = .seconds(7 * 86_400)
}

/// What one `import-customers` run did, and what it (or an earlier run of the same input)
/// found for each line.
public struct CustomerImportReport: Sendable, Encodable {
    /// The input's digest (its cursor's name): the same lines, the same run.
    public var run: String
    /// The 1-based position of the first line this run did, when it resumed an earlier one.
    public var resumedAt: Int?
    public var total: Int
    /// Lines with a result, this run's and the earlier ones'.
    public var done: Int = 0
    /// Results by verdict, over every line with a result.
    public var counts: [String: Int] = [:]
    /// This run's newly stored transactions, and its requests to Apple.
    public var transactionsBackfilled = 0
    public var appleRequests = 0
    /// Waits on the shared rate limit (set by the caller, which owns the gate).
    public var rateLimitedWaits = 0
    /// The budget ran out: a rerun resumes at the next line.
    public var outOfTime = false
    /// `apple_unavailable` when Apple stopped answering: a rerun resumes at that line.
    public var stoppedBy: String?
    /// Oldest first, in input order.
    public var lines: [CustomerImportLineResult] = []

    init(run: String, total: Int) {
        self.run = run
        self.total = total
    }

    mutating func add(_ result: CustomerImportLineResult) {
        lines.append(result)
        done += 1
        counts[result.result.rawValue, default: 0] += 1
    }
}
