import FoundationEssentials

/// The worker: claims queued notifications under a lease, applies each to its entitlement,
/// acknowledges. A notification that fails is given back with backoff and, after its
/// attempts run out, dead-lettered by the queue: never lost, never applied twice (applying
/// is idempotent, so a redelivery after a crash is harmless).
public final class NotificationProcessor {
    /// What one run did.
    public struct Report: Codable, Sendable, Equatable {
        public var applied = 0
        public var stale = 0
        public var duplicate = 0
        public var ignored = 0
        public var failed = 0
        public var deadLettered = 0
        /// Notifications still queued when the run ended (time budget reached).
        public var remaining = 0
        /// Events the run put in the event log, and the time relaying them took (what events
        /// add to each notification, beyond the outbox written with the record).
        public var events = 0
        public var eventMilliseconds = 0.0
        /// Refund requests: recorded and closed by this run's notifications, answered by its
        /// due set (`RefundRequestsWork`).
        public var refundRequests = RefundRequestsWork()

        public init() {}
    }

    /// A lease longer than any single notification takes; a worker killed mid-way loses it
    /// and the notification comes back after this long.
    public static let defaultLease: Duration = .seconds(30)

    private let store: any KeyValueStore
    private let repository: EntitlementRepository
    private let lease: Duration
    /// Measures the run's budget on its monotonic clock.
    private let time: any TimeSource

    /// Relays each notification's events once it is applied (give a `deferred` recording: the
    /// processor flushes it after each notification and times it), and at the end of the run
    /// whatever other functions left in outboxes; nil leaves them all for the next relay.
    private let events: EventRecording?
    /// Answers the refund requests due, once the run's notifications are acknowledged; nil
    /// records requests and outcomes but answers none.
    private let refunds: RefundAnswerer?

    /// Events the metrics aggregator counts at the end of each run, at most (0: none).
    private let metricsCatchUp: Int
    /// A bound that keeps a run's tail short while a busy log is followed run after run.
    public static let defaultMetricsCatchUp = 5_000

    public init(store: any KeyValueStore, lease: Duration = NotificationProcessor.defaultLease, time: any TimeSource,
                events: EventRecording? = nil, refunds: RefundAnswerer? = nil,
                metricsCatchUp: Int = NotificationProcessor.defaultMetricsCatchUp) {
        self.store = store
        self.metricsCatchUp = metricsCatchUp
        self.time = time
        self.events = events
        self.refunds = refunds
        self.repository = EntitlementRepository(store: store, events: events)
        self.lease = lease
    }

    /// Works until the queue is empty or `budget` has passed. `onFailure` sees each failure
    /// (for the log); the run itself only throws when the store cannot be used at all (a
    /// `StoreError` whose `isStoreFault` is set), so the worker exits 75 and retries later.
    public func run(budget: Duration, onFailure: (String, any Error) -> Void = { _, _ in }) throws(StoreError) -> Report {
        var report = Report()
        var tally = ReceivedTally()
        let deadline = time.monotonic() + budget
        let deadBefore = try store.deadLetters(in: StoreKeys.notificationQueue).count
        while time.monotonic() < deadline {
            guard let claimed = try store.claim(from: StoreKeys.notificationQueue, lease: lease) else { break }
            do {
                let notification = try decode(claimed)
                let update = try repository.apply(notification.event)
                report.refundRequests.count(try RefundRequestRepository(store: store).notice(notification, now: time.now().millisecondsSince1970))
                switch update.outcome {
                case .applied: report.applied += 1
                case .stale: report.stale += 1
                case .duplicate: report.duplicate += 1
                case .ignored: report.ignored += 1
                }
                if try store.acknowledge(claimed) { tally.add(notification) }
                if tally.count >= ReceivedTally.batch { try count(&tally, onFailure: onFailure) }
                relayEvents(into: &report)
            } catch let error as StoreError where error.isStoreFault {
                // Down, full, read-only or damaged: every job would fail the same way, and
                // counting each as failed would spend its attempts and dead-letter work that is
                // fine. Stop; the lease runs out and the next run takes the job again.
                throw error
            } catch {
                report.failed += 1
                onFailure(claimed.job.id, error)
                if claimed.attempt >= claimed.job.maxAttempts {
                    try PipelineMetrics(store: store).deadLettered(claimed.job.id, error: error, at: time.now().millisecondsSince1970)
                }
                try store.release(claimed, retryIn: Self.backoff(attempt: claimed.attempt))
            }
        }
        try count(&tally, onFailure: onFailure)
        try answerRefundRequests(into: &report, onFailure: onFailure)
        if let events {
            // The cron job every deployment runs: events any function left in an outbox (a
            // support operation, a process killed after its write) reach the log here too.
            let start = time.monotonic()
            do {
                report.events += try EventRelay(store: store, catalog: events.catalog).relayPending(now: events.now)
            } catch let error as StoreError where error.isStoreFault {
                throw error
            } catch {
                onFailure("event-relay", error)
            }
            report.eventMilliseconds += Double((time.monotonic() - start) / .microseconds(1)) / 1000
        }
        if metricsCatchUp > 0 { try catchUpMetrics(onFailure: onFailure) }
        report.deadLettered = max(0, try store.deadLetters(in: StoreKeys.notificationQueue).count - deadBefore)
        report.remaining = try store.pendingCount(in: StoreKeys.notificationQueue)
        return report
    }

    /// After the acknowledgement: a relay that fails leaves the events in their outbox.
    private func relayEvents(into report: inout Report) {
        guard let events else { return }
        let start = time.monotonic()
        report.events += events.flush(store: store)
        report.eventMilliseconds += Double((time.monotonic() - start) / .microseconds(1)) / 1000
    }

    /// After every acknowledgement: an answer that fails never fails a notification.
    private func answerRefundRequests(into report: inout Report, onFailure: (String, any Error) -> Void) throws(StoreError) {
        guard let refunds else { return }
        do {
            report.refundRequests.add(try refunds.answerDue())
        } catch where error.isStoreFault {
            throw error
        } catch {
            onFailure("refund-answers", error)
        }
    }

    /// Notifications received, by type: counted once acknowledged, a batch at a time
    /// (`PipelineMetrics.received`).
    private func count(_ tally: inout ReceivedTally, onFailure: (String, any Error) -> Void) throws(StoreError) {
        guard tally.count > 0 else { return }
        defer { tally = ReceivedTally() }
        do {
            try PipelineMetrics(store: store).received(tally)
        } catch where error.isStoreFault {
            throw error
        } catch {
            onFailure("metrics", error)
        }
    }

    /// The end of every run: the metrics count what the run (and anyone else) logged, bounded.
    private func catchUpMetrics(onFailure: (String, any Error) -> Void) throws(StoreError) {
        do {
            try MetricsAggregator(store: store).catchUp(maxEvents: metricsCatchUp, now: time.now().millisecondsSince1970)
        } catch let error as StoreError where error.isStoreFault {
            throw error
        } catch {
            onFailure("metrics", error)
        }
    }

    private func decode(_ claimed: ClaimedJob) throws -> StoredNotification {
        // The job carries the stored record itself (the inbox queues both in one step), so the
        // worker never reads the notification key.
        let bytes = claimed.job.payload
        let notification: StoredNotification
        do {
            notification = try JSONDecoder().decode(StoredNotification.self, from: Data(bytes))
        } catch {
            throw EntitlementError("stored notification \(claimed.job.id) does not decode: \(error)")
        }
        guard notification.notificationUUID == claimed.job.id else {
            throw EntitlementError("job \(claimed.job.id) carries notification \(notification.notificationUUID)")
        }
        return notification
    }

    /// 10 s, 20 s, 40 s, ... at most an hour between attempts.
    static func backoff(attempt: Int) -> Duration {
        .seconds(min(3600, 10 << min(max(attempt - 1, 0), 12)))
    }
}
