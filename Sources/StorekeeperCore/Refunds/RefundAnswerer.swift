import FoundationEssentials

/// Answers refund requests: works the due set (`StoreKeys.refundAnswersDue`) soonest first, at
/// most `limit` sends a run (and ten times as many looks: a request waiting for consent costs
/// reads only, so a backlog of them does not starve the consented ones), and for each request decides (`ConsumptionDecision`) and sends Send
/// Consumption Information (v2) with one attempt per run. Apple's 5xx, 429 and transport
/// failures are tried again at later runs with backoff until the deadline, never after it; a
/// 4xx is final. A run killed anywhere leaves the request due: the next run sends it (a second
/// send is harmless to Apple, a missing one is not).
public struct RefundAnswerer {
    /// Answers one run sends, at most.
    public static let defaultLimit = 20
    /// How often a request waiting for consent or credentials is looked at again.
    public static let recheck: Int64 = 5 * 60_000

    let store: any KeyValueStore
    let catalog: Catalog
    /// The client for an app (its tokens' `bid`) retrying as the policy says; nil when no API
    /// key is configured.
    let clients: (String, AppStoreAPIRetryPolicy) throws -> AppStoreServerAPIClient?
    let time: any TimeSource

    public init(store: any KeyValueStore, catalog: Catalog, time: any TimeSource,
                clients: @escaping (String, AppStoreAPIRetryPolicy) throws -> AppStoreServerAPIClient?) {
        self.store = store
        self.catalog = catalog
        self.time = time
        self.clients = clients
    }

    /// One request's turn.
    enum Turn {
        /// `attempted`: a PUT went to Apple.
        case finished(answered: Bool, attempted: Bool)
        case waiting(RefundWaitReason)
        /// Apple did not take it for a reason every other request shares (Apple down, our key
        /// refused): the run sends nothing more.
        case stopSending
        case skipped
    }

    public func answerDue(limit: Int = defaultLimit) throws(StoreError) -> RefundRequestsWork {
        var work = RefundRequestsWork()
        var looked = 0
        var sent = 0
        for member in try store.setMembers(StoreKeys.refundAnswersDue) where sent < limit && looked < 10 * limit {
            let now = time.now().millisecondsSince1970
            guard let (at, key) = RefundRequestRepository.parseDue(member) else {
                try store.removeFromSet(StoreKeys.refundAnswersDue, member)
                continue
            }
            guard at <= now else { break }
            looked += 1
            switch try turn(key: key, member: member, at: at, now: now) {
            case .finished(let answered, let attempted):
                answered ? (work.answered += 1) : (work.notAnswered += 1)
                if attempted { sent += 1 }
            case .waiting(let reason):
                work.waiting += 1
                if reason == .noCredentials { work.noCredentials += 1 }
            case .stopSending:
                work.waiting += 1
                return work
            case .skipped: looked -= 1
            }
        }
        return work
    }

    private func turn(key: String, member: String, at: Int64, now: Int64) throws(StoreError) -> Turn {
        guard let request = try store.get(key, as: RefundRequest.self), request.state == .open, request.nextAttemptAt == at else {
            // Answered, final, closed or rescheduled: this member is spent.
            try store.removeFromSet(StoreKeys.refundAnswersDue, member)
            return .skipped
        }
        guard now < request.deadline else {
            let reason = request.waitingFor.flatMap(RefundWaitReason.init(rawValue:)) ?? .deadlinePassed
            return try finish(key: key, member: member, at: at, reason: reason, now: now)
        }
        let facts = ConsumptionFactsRepository(store: store)
        let policy = request.productId.flatMap { catalog.product($0)?.refundPolicy } ?? .none
        let decision = ConsumptionDecision.decide(request, consent: try facts.consent(for: request),
                                                  consumption: try facts.consumption(transactionId: request.transactionId),
                                                  policy: policy)
        switch decision {
        case .final(let reason):
            return try finish(key: key, member: member, at: at, reason: reason, now: now)
        case .wait(let reason):
            return try wait(key: key, member: member, at: at, reason: reason, next: now + Self.recheck, error: nil, now: now)
        case .send(let body):
            return try send(body, request: request, key: key, member: member, at: at, now: now)
        }
    }
}
