/// `deliver-events {"status": true}` for one endpoint, read from its state in the store.
public struct WebhookEndpointStatus: Codable, Sendable, Equatable {
    public var name: String
    public var host: String
    /// The last sequence handed over (delivered, skipped, waiting or dead-lettered).
    public var cursor: Int64
    /// The log's last sequence.
    public var lastSequence: Int64
    /// Events after the cursor plus events waiting to be retried.
    public var pending: Int
    /// How long the oldest pending event has been in the log (seconds, the function clock).
    public var oldestPendingAgeSeconds: Int64?
    /// Customers whose events wait behind a failed one.
    public var waitingCustomers: Int
    /// The events being retried, by their last answer ("500", "timeout", ...).
    public var failures: [String: Int]
    public var deadLetters: DeadLetters

    public struct DeadLetters: Codable, Sendable, Equatable {
        public var count: Int
        public var byAnswer: [String: Int]
        /// The oldest few, with their last answer.
        public var oldest: [WebhookDeadLetter]
    }

    /// How many dead letters the answer lists (all are counted).
    static let listed = 20

    /// Reads the endpoint's state at `now` (ms).
    public static func read(_ endpoint: WebhookEndpoint, store: any KeyValueStore, now: Int64) throws -> WebhookEndpointStatus {
        try read(name: endpoint.name, host: endpoint.host, store: store, now: now)
    }

    /// The same by the endpoint's name alone (metrics know no secret).
    public static func read(name: String, host: String, store: any KeyValueStore, now: Int64) throws -> WebhookEndpointStatus {
        let cursor = try store.get(StoreKeys.webhookCursor(endpoint: name), as: WebhookCursor.self)?.sequence ?? 0
        let log = EventLog(store: store)
        let last = try log.bounds().last
        var pending = Int(max(0, last - cursor))
        var oldest = try log.events(after: cursor, limit: 1).first?.recordedAt
        var failures: [String: Int] = [:]
        let members = try store.setMembers(StoreKeys.webhookWaiting(endpoint: name))
        for member in members {
            let events = try store.get(StoreKeys.webhookBacklog(endpoint: name, member: member), as: WebhookBacklog.self)?.events ?? []
            pending += events.count
            if let head = events.first, let answer = head.lastAnswer { failures[answer, default: 0] += 1 }
            for event in events { oldest = min(oldest ?? event.recordedAt, event.recordedAt) }
        }
        return WebhookEndpointStatus(
            name: name, host: host, cursor: cursor, lastSequence: last, pending: pending,
            oldestPendingAgeSeconds: oldest.map { max(0, now - $0) / 1000 }, waitingCustomers: members.count,
            failures: failures, deadLetters: try deadLetters(of: name, store: store))
    }

    private static func deadLetters(of name: String, store: any KeyValueStore) throws -> DeadLetters {
        var letters: [WebhookDeadLetter] = []
        for id in try store.setMembers(StoreKeys.webhookDeadLetters(endpoint: name)) {
            if let letter = try store.get(StoreKeys.webhookDeadLetter(endpoint: name, eventId: id), as: WebhookDeadLetter.self) {
                letters.append(letter)
            }
        }
        letters.sort { $0.sequence < $1.sequence }
        var byAnswer: [String: Int] = [:]
        for letter in letters { byAnswer[letter.lastAnswer, default: 0] += 1 }
        return DeadLetters(count: letters.count, byAnswer: byAnswer, oldest: Array(letters.prefix(listed)))
    }
}
