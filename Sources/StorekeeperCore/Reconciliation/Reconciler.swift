import FoundationEssentials

/// The daily walk that makes stored entitlements converge on Apple's truth: for each chosen
/// subscription, ask Get All Subscription Statuses and apply the answer through the same
/// `EntitlementEngine` as notifications (source `reconciliation`). A stored status that the
/// answer changes is a correction, the visible trace of a lost notification.
///
/// - Resumable: after every subscriber the cursor is saved, so a killed or out-of-time run
///   continues the next time with the next one.
/// - Safe when Apple is down: a failed lookup changes nothing for that subscriber; the last
///   good answer stays cached for `get-entitlements`.
/// - Rate limits are the lookup's business (the client waits on the shared bucket); the
///   reconciler only stops when its time budget is spent.
public final class Reconciler {
    private let store: any KeyValueStore
    private let repository: EntitlementRepository
    private let lookup: any SubscriptionStatusLookup
    private let verifier: SignedDataVerifier
    private let clock: any TimeSource
    /// The app this reconciler walks: the lookup asks Apple with this app's token.
    private let bundleId: String

    /// Called after each subscriber with (done, total), for a progress line on a terminal.
    public var progress: ((Int, Int) -> Void)?
    /// Called for each correction, for the log.
    public var onCorrection: ((Correction) -> Void)?

    public struct Correction: Sendable, Equatable {
        public var originalTransactionId: String
        public var from: EntitlementStatus?
        public var to: EntitlementStatus
        /// "expired→active": how reports count corrections.
        public var kind: String { "\(from?.rawValue ?? "none")→\(to.rawValue)" }
    }

    public init(store: any KeyValueStore, bundleId: String, lookup: any SubscriptionStatusLookup, verifier: SignedDataVerifier,
                clock: any TimeSource, events: EventRecording? = nil) {
        self.store = store
        self.bundleId = bundleId
        self.repository = EntitlementRepository(store: store, events: events)
        self.lookup = lookup
        self.verifier = verifier
        self.clock = clock
    }

    /// After this many subscribers in a row without an answer, Apple is taken to be down: the
    /// run stops, and the next one resumes at the first of them.
    public static let unavailableStreakLimit = 5

    /// Walks `selection` until done or until `outOfTime()` says so (asked before each
    /// subscriber; the budget is measured by the caller's monotonic clock, not by `clock`,
    /// which tests may stop). `restart` drops a saved cursor.
    public func run(_ selection: ReconciliationSelection, restart: Bool = false,
                    outOfTime: () -> Bool) throws -> ReconciliationReport {
        let cursorKey = StoreKeys.reconciliationCursor(bundleId: bundleId, selection: selection.cursorName)
        let now = clock.now()
        var report = ReconciliationReport(selection: selection.cursorName)
        var cursor: ReconciliationCursor?
        if restart {
            _ = try store.delete(cursorKey)
        } else if let saved = try store.get(cursorKey) {
            cursor = try? JSONDecoder().decode(ReconciliationCursor.self, from: Data(saved.bytes))
        }
        let everyone = try candidates(selection, now: now)
        let startedAt = cursor?.startedAt ?? now.millisecondsSince1970
        let remaining = cursor.map { saved in everyone.filter { $0 > saved.after } } ?? everyone
        report.resumedAfter = cursor?.after
        report.total = remaining.count

        var unavailableStreak = 0
        // Once a subscriber went unanswered, the cursor stays before it for the rest of the run:
        // a run that stops later resumes there, rather than past somebody never asked.
        var cursorHeld = false
        for originalTransactionId in remaining {
            if outOfTime() {
                report.outOfTime = true
                break
            }
            let outcome = try reconcile(originalTransactionId, into: &report)
            if outcome == .outOfTime {
                // Not asked: the budget would end while waiting for the rate limit.
                report.outOfTime = true
                break
            }
            report.done += 1
            progress?(report.done, report.total)
            guard outcome == .answered else {
                cursorHeld = true
                unavailableStreak += 1
                if unavailableStreak >= Self.unavailableStreakLimit {
                    report.stoppedBy = "apple_unavailable"
                    break
                }
                continue
            }
            unavailableStreak = 0
            if !cursorHeld {
                let saved = ReconciliationCursor(after: originalTransactionId, startedAt: startedAt)
                try store.set(cursorKey, Self.encode(saved), expiresIn: ReconciliationCursor.lifetime)
            }
        }
        if !report.outOfTime && report.stoppedBy == nil {
            // A finished walk: the next run starts from the beginning.
            _ = try store.delete(cursorKey)
        }
        return report
    }

    enum Outcome: Equatable {
        /// Apple answered (the answer may still have failed verification: counted).
        case answered
        /// No answer from Apple: nothing was changed.
        case unavailable
        /// Not asked: the run's budget ran out first.
        case outOfTime
    }

    /// One subscriber: ask, verify, apply, compare. Failures are counted, never thrown, so one
    /// bad answer does not stop the walk; a refused API key stops it (every request would fail
    /// the same way), and so does the store failing (nothing could be saved anyway).
    private func reconcile(_ originalTransactionId: String, into report: inout ReconciliationReport) throws -> Outcome {
        let answer: [AppleSubscriptionState]
        do {
            answer = try lookup.latestTransactions(of: originalTransactionId)
        } catch {
            switch error.kind {
            case .misconfigured: throw error
            case .storeUnavailable: throw StoreError(.unavailable, error.reason)
            case .outOfTime: return .outOfTime
            case .notFound: report.count(failure: ReportFailureCode.notFound.rawValue)
            case .unavailable, .rejected: report.count(failure: error.code)
            }
            report.asked += 1
            return error.kind == .unavailable ? .unavailable : .answered
        }
        report.asked += 1
        let now = clock.now()
        var changed = false
        var failed = false
        for state in answer {
            do {
                if let correction = try apply(state, now: now) {
                    changed = true
                    report.corrected[correction.kind, default: 0] += 1
                    onCorrection?(correction)
                }
            } catch let error as VerificationError {
                failed = true
                report.count(failure: error.code)
            } catch let error as StoreError where error.isStoreFault {
                // The store itself failed, not this subscriber's record: stop the run as the
                // outage it is (503 / exit 75); the cursor stays before this subscriber.
                throw error
            } catch let error as StoreError {
                failed = true
                report.count(failure: error.code)
            } catch {
                failed = true
                report.count(failure: "failed")
            }
        }
        // Unchanged means Apple agreed, not that its answer could not be used.
        if !changed && !failed { report.unchanged += 1 }
        return .answered
    }

    /// Applies one of Apple's answers; the correction when the status it implies differs from
    /// the stored one.
    private func apply(_ state: AppleSubscriptionState, now: Date) throws -> Correction? {
        guard let signedTransaction = state.signedTransactionInfo else { return nil }
        let transaction = try verifier.verifyTransaction(signedTransaction, now: now).payload
        var renewal: JWSRenewalInfoDecodedPayload?
        if let signedRenewal = state.signedRenewalInfo {
            renewal = try verifier.verifyRenewalInfo(signedRenewal, now: now).payload
        }
        let originalTransactionId = transaction.originalTransactionId ?? state.originalTransactionId
        let subscription = SubscriptionRef(bundleId: transaction.bundleId ?? bundleId, originalTransactionId: originalTransactionId)
        let stored = try repository.record(subscription)
        // Two views of "before": the record as last written, and that record moved on by the
        // clock. A lost renewal shows in the second (it looked expired), a lost expiry in the
        // first (the record still said active); either differing from Apple is a correction.
        let storedStatus = stored?.status(at: nil)
        let storedNow = stored?.status(at: now.millisecondsSince1970)
        let event = AppleFact(.reconciliation(originalTransactionId: originalTransactionId),
                              transaction: transaction, renewalInfo: renewal)
        let update = try repository.apply(event)
        guard let record = update.record else { return nil }
        let after = record.status(at: now.millisecondsSince1970)
        let snapshot = AppleStatusSnapshot(appleStatus: state.status, status: after, askedAt: now.millisecondsSince1970)
        try repository.confirm(snapshot, for: subscription)
        if storedNow != after {
            return Correction(originalTransactionId: originalTransactionId, from: storedNow, to: after)
        }
        if storedStatus != after {
            return Correction(originalTransactionId: originalTransactionId, from: storedStatus, to: after)
        }
        return nil
    }

    /// The original transaction ids to ask about, sorted (the cursor's order).
    func candidates(_ selection: ReconciliationSelection, now: Date) throws -> [String] {
        switch selection {
        case .explicit(let ids):
            return Set(ids).sorted()
        case .all:
            return try repository.allSubscriptions(of: bundleId).map(\.originalTransactionId)
        case .needsAttention:
            var chosen = Set(try failedNotificationSubjects())
            let nowMilliseconds = now.millisecondsSince1970
            for subscription in try repository.allSubscriptions(of: bundleId) where !chosen.contains(subscription.originalTransactionId) {
                let id = subscription.originalTransactionId
                let record: EntitlementRecord?
                do { record = try repository.record(subscription) } catch { chosen.insert(id); continue }
                guard let record else {
                    chosen.insert(id) // indexed but never written: ask Apple what it is
                    continue
                }
                if Self.needsAttention(record, now: nowMilliseconds) { chosen.insert(id) }
            }
            return chosen.sorted()
        }
    }

    static func needsAttention(_ record: EntitlementRecord, now: Int64) -> Bool {
        switch record.status(at: now) {
        case .active, .grace, .billingRetry:
            return true
        case .expired:
            // The period ended and Apple said nothing since: a renewal or an expiry
            // notification may be missing.
            guard let expires = record.latestTransaction?.expiresDate else { return false }
            return record.lastEvent.signedDate < expires && now - expires < ReconciliationSelection.suspiciousExpiryWindow
        case .refunded, .revoked, .lifetime:
            return false
        }
    }

    /// Subscriptions whose notifications ended in the dead letters.
    private func failedNotificationSubjects() throws(StoreError) -> [String] {
        var subjects: [String] = []
        for uuid in try store.deadLetters(in: StoreKeys.notificationQueue) {
            guard let stored = try store.get(StoreKeys.notification(uuid)),
                  let notification = try? JSONDecoder().decode(StoredNotification.self, from: Data(stored.bytes)),
                  let id = notification.event.originalTransactionId,
                  notification.event.bundleId == nil || notification.event.bundleId == bundleId
            else { continue }
            subjects.append(id)
        }
        return subjects
    }

    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Plain records of strings and numbers: encoding cannot fail.
        return (try? encoder.encode(value)).map(Array.init) ?? []
    }
}
