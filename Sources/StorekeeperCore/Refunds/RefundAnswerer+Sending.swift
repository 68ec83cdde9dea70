import FoundationEssentials

/// Sending one answer and writing down what came of it.
extension RefundAnswerer {
    /// The wait before the next try after `attempts` failed ones: 1, 2, 4, ... minutes, at most 30.
    static func backoff(attempts: Int) -> Int64 {
        min(30 * 60_000, 60_000 << Int64(min(max(attempts - 1, 0), 5)))
    }

    /// One attempt, no retry inside the run (later runs retry), never past the deadline.
    static func policy(until deadline: Int64, now: Int64) -> AppStoreAPIRetryPolicy {
        let left = Duration.milliseconds(max(1, deadline - now))
        return AppStoreAPIRetryPolicy(maximumAttempts: 1, deadline: min(.seconds(15), left),
                                      attemptTimeout: min(.seconds(15), left), connectTimeout: .seconds(5))
    }

    func send(_ body: ConsumptionRequest, request: RefundRequest, key: String, member: String, at: Int64,
              now: Int64) throws(StoreError) -> Turn {
        let client: AppStoreServerAPIClient?
        do {
            client = try clients(request.bundleId, Self.policy(until: request.deadline, now: now))
        } catch {
            client = nil
        }
        guard let client, let environment = Environment(rawValue: request.environment).flatMap(AppStoreAPIEnvironment.init) else {
            return try wait(key: key, member: member, at: at, reason: .noCredentials, next: now + Self.recheck, error: nil, now: now)
        }
        let attempts = request.attempts + 1
        do {
            _ = try client.sendConsumptionInformation(transactionId: request.transactionId, request: body, environment: environment)
        } catch {
            let failure = RefundAnswerError(code: error.code, errorCode: error.errorCode, httpStatus: error.httpStatus)
            if error.kind == .unauthorized {
                _ = try wait(key: key, member: member, at: at, reason: .credentialsRefused, next: now + Self.recheck,
                             error: failure, attempts: attempts, now: now)
                return .stopSending
            }
            if error.isRetryable || error.kind == .transport || error.kind == .deadlineExceeded {
                let retryAfter = error.retryAfter.map { Int64($0 / .milliseconds(1)) } ?? 0
                _ = try wait(key: key, member: member, at: at, reason: .appleUnavailable,
                             next: now + max(Self.backoff(attempts: attempts), retryAfter), error: failure, attempts: attempts, now: now)
                return .stopSending
            }
            return try finish(key: key, member: member, at: at, reason: .appleRefused, now: now, error: failure, attempts: attempts)
        }
        return try write(key: key, member: member, at: at) { record in
            record.state = .answered
            record.sent = body
            record.answeredAt = time.now().millisecondsSince1970
            record.attempts = attempts
            record.lastAttemptAt = now
            record.waitingFor = nil
            record.nextAttemptAt = nil
        } turn: { .finished(answered: true, attempted: true) }
    }

    /// Not answered, for good.
    func finish(key: String, member: String, at: Int64, reason: RefundWaitReason, now: Int64,
                error: RefundAnswerError? = nil, attempts: Int? = nil) throws(StoreError) -> Turn {
        try write(key: key, member: member, at: at) { record in
            record.state = .notAnswered
            record.notAnsweredReason = reason.rawValue
            record.waitingFor = nil
            record.nextAttemptAt = nil
            if let error { record.lastError = error }
            if let attempts {
                record.attempts = attempts
                record.lastAttemptAt = now
            }
        } turn: { .finished(answered: false, attempted: attempts != nil) }
    }

    /// Due again at `next` (the deadline at the latest, where it is then finished): the new
    /// member is added before the record names it, the old one removed after.
    func wait(key: String, member: String, at: Int64, reason: RefundWaitReason, next: Int64, error: RefundAnswerError?,
              attempts: Int? = nil, now: Int64) throws(StoreError) -> Turn {
        let deadline = (try store.get(key, as: RefundRequest.self))?.deadline ?? next
        let due = min(next, deadline)
        try store.addToSet(StoreKeys.refundAnswersDue, RefundRequestRepository.dueMember(at: due, key: key))
        return try write(key: key, member: member, at: at) { record in
            record.waitingFor = reason.rawValue
            record.nextAttemptAt = due
            if let error { record.lastError = error }
            if let attempts {
                record.attempts = attempts
                record.lastAttemptAt = now
            }
        } turn: { .waiting(reason) }
    }

    /// Changes the record if it is still open and due at `at`, then removes the spent member.
    private func write(key: String, member: String, at: Int64, _ change: (inout RefundRequest) -> Void,
                       turn: () -> Turn) throws(StoreError) -> Turn {
        let changed = try store.update(key, as: RefundRequest.self,
                                       attempts: RefundRequestRepository.compareAndSetAttempts) { (current) throws(StoreError) in
            guard var record = current, record.state == .open, record.nextAttemptAt == at else { return .keep(false) }
            change(&record)
            return .write(record, true)
        }
        // Written, or moved on meanwhile (closed, asked again): either way this member is spent.
        try store.removeFromSet(StoreKeys.refundAnswersDue, member)
        return changed ? turn() : .skipped
    }
}
