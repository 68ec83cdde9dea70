/// One endpoint's deliveries: a pass first retries the backlogs that are due (each customer's
/// first waiting event, then the ones behind it once it went), then walks the event log from
/// the endpoint's cursor. Every step is written to the store before the next send, under the
/// endpoint's lease (`WebhookLease`).
///
/// An event that fails goes into its customer's backlog with its next due time
/// (`WebhookRetrySchedule`); the customer's later events queue behind it, other customers'
/// events go on. When too many customers or events wait (`WebhookLimits`) the cursor stops:
/// the log keeps the rest.
public final class WebhookDeliverer {
    /// Events read from the log at a time.
    static let batch = 200

    let store: any KeyValueStore
    let endpoint: WebhookEndpoint
    let sender: WebhookSender
    let schedule: WebhookRetrySchedule
    let limits: WebhookLimits
    let clock: any TimeSource
    let leaseDuration: Duration
    /// Told of each failed attempt: the event, its answer, its next due time (nil: dead-lettered).
    let onFailure: (Event, String, Int64?) -> Void

    var lease: WebhookLease?
    var deadline = Duration.zero
    var stopRequested: () -> Bool = { false }
    var waiting: Set<String> = []
    var report: WebhookPassReport

    public init(store: any KeyValueStore, endpoint: WebhookEndpoint, sender: WebhookSender,
                schedule: WebhookRetrySchedule = WebhookRetrySchedule(), limits: WebhookLimits = WebhookLimits(),
                clock: any TimeSource, leaseDuration: Duration,
                onFailure: @escaping (Event, String, Int64?) -> Void = { _, _, _ in }) {
        self.store = store
        self.endpoint = endpoint
        self.sender = sender
        self.schedule = schedule
        self.limits = limits
        self.clock = clock
        self.leaseDuration = leaseDuration
        self.onFailure = onFailure
        report = WebhookPassReport(endpoint: endpoint)
    }

    /// One pass, until everything due is done, `budget` (monotonic) is spent or `stop` says
    /// so (checked before each send: the send in flight is finished and recorded first).
    public func pass(budget: Duration, stop: @escaping () -> Bool = { false }) throws -> WebhookPassReport {
        report = WebhookPassReport(endpoint: endpoint)
        deadline = clock.monotonic() + budget
        stopRequested = stop
        guard let lease = try WebhookLease.acquire(endpoint.name, store: store, duration: leaseDuration, clock: clock) else {
            report.busy = true
            try countPending()
            return report
        }
        self.lease = lease
        defer { lease.release(); self.lease = nil }
        waiting = Set(try store.setMembers(StoreKeys.webhookWaiting(endpoint: endpoint.name)))
        do {
            try retryBacklogs()
            try walkLog()
        } catch WebhookPassStop.stop {
            // The rest waits for the next pass.
        }
        try countPending()
        return report
    }

    /// May the pass send one more event?
    func mayContinue() throws -> Bool {
        guard clock.monotonic() < deadline, !stopRequested(), let lease else { return false }
        return try lease.keep()
    }

    var now: Int64 { clock.now().millisecondsSince1970 }

    /// From the cursor on: deliver, or queue behind the customer's waiting events.
    private func walkLog() throws {
        let cursorKey = StoreKeys.webhookCursor(endpoint: endpoint.name)
        let stored = try store.get(cursorKey)
        var version = stored?.version
        var cursor = try stored.map { try WebhookCursor(storeBytes: $0.bytes) }?.sequence ?? 0
        let log = EventLog(store: store)
        func save(_ sequence: Int64) throws {
            guard try store.compareAndSet(cursorKey, try WebhookCursor(sequence: sequence).storeBytes(),
                                          expectedVersion: version, expiresIn: nil) else { throw WebhookPassStop.stop }
            version = try store.get(cursorKey)?.version
            cursor = sequence
        }
        var seen = cursor
        defer { if seen > cursor { try? save(seen) } }
        while true {
            let events = try log.events(after: seen, limit: Self.batch)
            guard !events.isEmpty else { return }
            for event in events {
                guard endpoint.accepts(event) else { report.skipped += 1; seen = event.sequence; continue }
                guard try mayContinue() else { throw WebhookPassStop.stop }
                try hand(event)
                try save(event.sequence)
                seen = event.sequence
            }
        }
    }

    /// Sends the event, or parks it in its customer's backlog; throws `.stop` on back-pressure.
    private func hand(_ event: Event) throws {
        let member = WebhookQueueMember.of(event.customerId)
        if waiting.contains(member) {
            guard try enqueue(WaitingEvent(event), member: member) else { throw WebhookPassStop.stop }
            return
        }
        guard waiting.count < limits.maximumWaitingCustomers else { throw WebhookPassStop.stop }
        let sentAt = now
        guard let answer = try sender.send(event, to: endpoint, now: sentAt) else {
            report.delivered += 1
            return
        }
        var first = WaitingEvent(event)
        first.attempts = 1
        first.firstFailedAt = sentAt
        first.lastAnswer = answer
        first.nextDueAt = schedule.nextDue(failures: 1, firstFailedAt: sentAt, now: sentAt)
        report.failed += 1
        note(due: first.nextDueAt)
        onFailure(event, answer, first.nextDueAt)
        _ = try enqueue(first, member: member)
    }
}
