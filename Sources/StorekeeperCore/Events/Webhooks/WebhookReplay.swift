/// replay-events: resends a range of the log to one endpoint, in order, with the same
/// `webhook-id` as the first time, under the endpoint's lease. One attempt per event; a
/// customer whose event failed gets none of its later ones in this replay (their order holds).
/// A dead letter that goes through is cleared.
public struct WebhookReplay {
    /// Which events: every bound is inclusive, every filter optional.
    public struct Selection: Sendable, Equatable {
        public var fromSequence: Int64?
        public var toSequence: Int64?
        /// `recordedAt` bounds (ms).
        public var from: Int64?
        public var to: Int64?
        public var customerId: String?
        public var userId: String?
        public var types: Set<String>?

        public init(fromSequence: Int64? = nil, toSequence: Int64? = nil, from: Int64? = nil, to: Int64? = nil,
                    customerId: String? = nil, userId: String? = nil, types: Set<String>? = nil) {
            self.fromSequence = fromSequence
            self.toSequence = toSequence
            self.from = from
            self.to = to
            self.customerId = customerId
            self.userId = userId
            self.types = types
        }

        func matches(_ event: Event) -> Bool {
            if let from, event.recordedAt < from { return false }
            if let to, event.recordedAt > to { return false }
            if let customerId, event.customerId != customerId { return false }
            if let userId, event.userId != userId { return false }
            if let types, !types.contains(event.type) { return false }
            return true
        }
    }

    public struct Report: Codable, Sendable, Equatable {
        public var endpoint: String
        public var host: String
        public var delivered = 0
        public var failed = 0
        /// Later events of a customer whose earlier event failed in this replay.
        public var held = 0
        public var deadLettersCleared = 0
        /// The sequence the replay stopped after, when its budget ran out first.
        public var stoppedAfter: Int64?
        /// Failed attempts by answer.
        public var failures: [String: Int] = [:]
    }

    let store: any KeyValueStore
    let endpoint: WebhookEndpoint
    let sender: WebhookSender
    let clock: any TimeSource

    public init(store: any KeyValueStore, endpoint: WebhookEndpoint, sender: WebhookSender, clock: any TimeSource) {
        self.store = store
        self.endpoint = endpoint
        self.sender = sender
        self.clock = clock
    }

    /// Nil when another run holds the endpoint's lease.
    public func run(_ selection: Selection, lease duration: Duration, budget: Duration) throws -> Report? {
        guard let lease = try WebhookLease.acquire(endpoint.name, store: store, duration: duration, clock: clock) else { return nil }
        defer { lease.release() }
        var report = Report(endpoint: endpoint.name, host: endpoint.host)
        let deadline = clock.monotonic() + budget
        let log = EventLog(store: store)
        let last = min(selection.toSequence ?? Int64.max, try log.bounds().last)
        var after = max((selection.fromSequence ?? 1) - 1, 0)
        var held: Set<String> = []
        while after < last {
            let events = try log.events(after: after, limit: WebhookDeliverer.batch)
            guard !events.isEmpty else { break }
            for event in events where event.sequence <= last {
                after = event.sequence
                guard selection.matches(event), endpoint.accepts(event) else { continue }
                guard clock.monotonic() < deadline, try lease.keep() else {
                    report.stoppedAfter = event.sequence - 1
                    return report
                }
                try send(event, &report, &held)
            }
            if events.last.map({ $0.sequence >= last }) ?? true { break }
        }
        return report
    }

    private func send(_ event: Event, _ report: inout Report, _ held: inout Set<String>) throws {
        let member = WebhookQueueMember.of(event.customerId)
        guard !held.contains(member) else { report.held += 1; return }
        if let answer = try sender.send(event, to: endpoint, now: clock.now().millisecondsSince1970) {
            report.failed += 1
            report.failures[answer, default: 0] += 1
            held.insert(member)
            return
        }
        report.delivered += 1
        if try store.delete(StoreKeys.webhookDeadLetter(endpoint: endpoint.name, eventId: event.id)) {
            try store.removeFromSet(StoreKeys.webhookDeadLetters(endpoint: endpoint.name), event.id)
            report.deadLettersCleared += 1
        }
    }
}
