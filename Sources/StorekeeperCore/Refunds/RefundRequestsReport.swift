/// What refund-requests answers for one app in one environment: the newest requests sorted by
/// state, and how Apple decided by the customer's reason.
public struct RefundRequestsReport: Encodable, Sendable, Equatable {
    public var bundleId: String
    public var environment: String
    /// Requests the app's index holds, and how many of the newest were read (the rest are older).
    public var recorded: Int
    public var examined: Int
    /// Open requests, soonest deadline first: each with its deadline, what it waits for, its attempts.
    public var open: [RefundRequest]
    /// Answers Apple accepted and not yet decided, newest first, each with the body sent (`sent`).
    public var answered: [RefundRequest]
    /// Requests that will not be answered, newest first (`notAnsweredReason`, `lastError`).
    public var notAnswered: [RefundRequest]
    /// Apple's decisions, newest first (`outcome`, `closedAt`; `sent` when an answer had gone).
    public var closed: [RefundRequest]
    /// By `consumptionRequestReason` (`none` when Apple gave none), over the requests examined.
    public var byReason: [String: ReasonFigures]

    public struct ReasonFigures: Encodable, Sendable, Equatable {
        public var requests = 0
        public var answered = 0
        public var refunded = 0
        public var declined = 0
        /// refunded / (refunded + declined); nil until Apple decided one.
        public var refundRate: Double?

        enum CodingKeys: String, CodingKey { case requests, answered, refunded, declined, refundRate }

        /// `refundRate` is null, not left out, before any decision.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(requests, forKey: .requests)
            try container.encode(answered, forKey: .answered)
            try container.encode(refunded, forKey: .refunded)
            try container.encode(declined, forKey: .declined)
            try container.encode(refundRate, forKey: .refundRate)
        }
    }

    /// Sorts `requests` (newest first) into the report.
    public init(bundleId: String, environment: String, recorded: Int, requests: [RefundRequest]) {
        self.bundleId = bundleId
        self.environment = environment
        self.recorded = recorded
        examined = requests.count
        open = requests.filter { $0.state == .open }.sorted { $0.deadline < $1.deadline }
        answered = requests.filter { $0.state == .answered }
        notAnswered = requests.filter { $0.state == .notAnswered }
        closed = requests.filter { $0.state == .closed }
        var figures: [String: ReasonFigures] = [:]
        for request in requests {
            var row = figures[request.consumptionRequestReason ?? "none", default: ReasonFigures()]
            row.requests += 1
            if request.sent != nil { row.answered += 1 }
            switch request.outcome {
            case .refunded?: row.refunded += 1
            case .declined?: row.declined += 1
            case nil: break
            }
            let decided = row.refunded + row.declined
            row.refundRate = decided == 0 ? nil : Double(row.refunded) / Double(decided)
            figures[request.consumptionRequestReason ?? "none"] = row
        }
        byReason = figures
    }
}
