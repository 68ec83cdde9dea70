import FoundationEssentials

/// Refund requests in the store: recorded from `CONSUMPTION_REQUEST`, closed by `REFUND` and
/// `REFUND_DECLINED`, each change one compare-and-set of the request's record. The app's index
/// and the due set are written before the record (a crash between leaves a member that finds
/// no record, which readers skip and the worker removes, never a record nobody finds).
public struct RefundRequestRepository {
    static let compareAndSetAttempts = 32

    let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    /// What noticing one notification did.
    public enum Notice: String, Sendable, Equatable {
        /// A new request (or Apple asking again for a transaction with a later request).
        case recorded
        /// The same notification again, or an older one: nothing changed.
        case duplicate
        /// REFUND or REFUND_DECLINED closed the transaction's request.
        case closed
        /// An outcome for a request closed already: the first outcome stands.
        case alreadyClosed
        /// REFUND or REFUND_DECLINED for a transaction with no recorded request.
        case withoutRequest
    }

    public func request(bundleId: String, environment: String, transactionId: String) throws(StoreError) -> RefundRequest? {
        try store.get(StoreKeys.refundRequest(bundleId: bundleId, environment: environment, transactionId: transactionId),
                      as: RefundRequest.self)
    }

    /// Records a CONSUMPTION_REQUEST, due for an answer at `now`. Idempotent: a redelivered
    /// notification changes nothing, an older one neither; a closed request is never reopened.
    public func record(_ new: RefundRequest, now: Int64) throws(StoreError) -> Notice {
        let key = StoreKeys.refundRequest(bundleId: new.bundleId, environment: new.environment, transactionId: new.transactionId)
        try store.addToSet(StoreKeys.refundRequests(bundleId: new.bundleId, environment: new.environment),
                           Self.indexMember(signedDate: new.signedDate, transactionId: new.transactionId))
        return try store.update(key, as: RefundRequest.self, attempts: Self.compareAndSetAttempts) { (current) throws(StoreError) in
            var record = new
            if let current, current.requests == 0 {
                // Apple's decision came first (refunds jump the queue): the request it decided
                // is recorded with it, closed, and owes no answer.
                record.state = .closed
                record.outcome = current.outcome
                record.closedAt = current.closedAt
                record.outcomeNotificationUUID = current.outcomeNotificationUUID
                return .write(record, .recorded)
            }
            if let current {
                guard current.state != .closed, current.notificationUUID != new.notificationUUID,
                      current.signedDate < new.signedDate else { return .keep(.duplicate) }
                // Apple asks again: a new round with its own deadline.
                record.requests = current.requests + 1
            }
            record.state = .open
            record.nextAttemptAt = now
            try store.addToSet(StoreKeys.refundAnswersDue, Self.dueMember(at: now, key: key))
            return .write(record, .recorded)
        }
    }

    /// Closes the transaction's request with Apple's decision (`decided`: the transaction as the
    /// REFUND / REFUND_DECLINED names it). The first outcome stands: a late or repeated one
    /// changes nothing. Without a request the decision is kept alone (`requests` 0, in no index
    /// and no report), so a request the worker meets after it (refunds jump the queue) is
    /// recorded closed instead of answered.
    public func close(_ decided: RefundRequest, outcome: RefundOutcome, notificationUUID: String,
                      at signedDate: Int64) throws(StoreError) -> Notice {
        let key = StoreKeys.refundRequest(bundleId: decided.bundleId, environment: decided.environment,
                                          transactionId: decided.transactionId)
        return try store.update(key, as: RefundRequest.self, attempts: Self.compareAndSetAttempts) { (current) throws(StoreError) in
            var notice = Notice.closed
            var record: RefundRequest
            if let current {
                guard current.state != .closed else { return .keep(.alreadyClosed) }
                record = current
            } else {
                record = decided
                record.requests = 0
                record.consumptionRequestReason = nil
                notice = .withoutRequest
            }
            record.state = .closed
            record.outcome = outcome
            record.closedAt = signedDate
            record.outcomeNotificationUUID = notificationUUID
            record.nextAttemptAt = nil
            record.waitingFor = nil
            return .write(record, notice)
        }
    }

    /// The requests of one app in one environment, newest first, at most `limit`, and how many
    /// the index holds.
    public func newest(bundleId: String, environment: String, limit: Int) throws(StoreError) -> (requests: [RefundRequest], indexed: Int) {
        let members = try store.setMembers(StoreKeys.refundRequests(bundleId: bundleId, environment: environment))
        var requests: [RefundRequest] = []
        var seen: Set<String> = []
        for member in members.reversed() where requests.count < limit {
            guard let bar = member.firstIndex(of: "|") else { continue }
            let transactionId = String(member[member.index(after: bar)...])
            // Apple asking again for a transaction adds a member; the record is one.
            guard seen.insert(transactionId).inserted else { continue }
            if let request = try request(bundleId: bundleId, environment: environment, transactionId: transactionId) {
                requests.append(request)
            }
        }
        return (requests, members.count)
    }

    /// What a notification means for refund requests: CONSUMPTION_REQUEST records one, REFUND
    /// and REFUND_DECLINED close one (matched by the app, environment and transaction id).
    public func notice(_ notification: StoredNotification, now: Int64) throws(StoreError) -> Notice? {
        switch notification.payload.notificationType {
        case .consumptionRequest?:
            guard let request = RefundRequest(consumptionRequest: notification) else { return nil }
            return try record(request, now: now)
        case .refund?, .refundDeclined?:
            guard let decided = RefundRequest(consumptionRequest: notification) else { return nil }
            return try close(decided, outcome: notification.payload.notificationType == .refund ? .refunded : .declined,
                             notificationUUID: notification.notificationUUID, at: notification.signedDate)
        default:
            return nil
        }
    }

    // MARK: Set members

    /// Fixed-width milliseconds first, so members sort by time.
    static func padded(_ milliseconds: Int64) -> String {
        let time = String(max(0, milliseconds))
        return String(repeating: "0", count: max(0, 13 - time.count)) + time
    }

    static func indexMember(signedDate: Int64, transactionId: String) -> String {
        padded(signedDate) + "|" + transactionId
    }

    static func dueMember(at milliseconds: Int64, key: String) -> String {
        padded(milliseconds) + "|" + key
    }

    /// The time and the record key of a due member.
    static func parseDue(_ member: String) -> (at: Int64, key: String)? {
        guard let bar = member.firstIndex(of: "|"), let at = Int64(member[..<bar]) else { return nil }
        return (at, String(member[member.index(after: bar)...]))
    }
}
