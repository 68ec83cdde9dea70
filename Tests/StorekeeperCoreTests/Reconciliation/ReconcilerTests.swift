import Foundation
import StorekeeperCore
import Testing

/// The reconciler in process: a MemoryStore holding what the notifications said, and Apple's
/// answers from a fake status source (signed by the test PKI), the way `reconcile` runs it
/// against the App Store Server API (that binary is tested in FunctionTests).
@Suite("Reconciler in process: a pass over the store corrects what Apple says differently, once")
struct ReconcilerTests {
    /// Get All Subscription Statuses as a table: Apple's answer per original transaction id.
    struct AppleStatuses: SubscriptionStatusLookup {
        var answers: [String: [AppleSubscriptionState]]
        func latestTransactions(of originalTransactionId: String) throws(SubscriptionStatusLookupFailure) -> [AppleSubscriptionState] {
            guard let answer = answers[originalTransactionId] else {
                throw SubscriptionStatusLookupFailure(.notFound, code: "TransactionIdNotFoundError", reason: originalTransactionId)
            }
            return answer
        }
    }

    /// What Apple says now about `story`, with `status` as Get All Subscription Statuses codes
    /// it: the latest transaction and renewal info, signed when asked (signedDate is now).
    static func appleSays(_ story: LifecycleSimulator, status: Int) throws -> AppleSubscriptionState {
        var latest = story.latest
        latest.signedDate = story.now
        var renewal = try #require(story.notifications.last?.renewal)
        renewal.signedDate = story.now
        return AppleSubscriptionState(
            originalTransactionId: story.originalTransactionId, status: status,
            signedTransactionInfo: try TestPKI.sign(encoding: latest),
            signedRenewalInfo: try TestPKI.sign(encoding: renewal))
    }

    @Test func aRefundTheNotificationsMissedIsCorrectedAndTheNextPassChangesNothing() throws {
        let store = MemoryStore()
        var story = LifecycleSimulator()
        story.subscribe()
        let repository = EntitlementRepository(store: store)
        _ = try repository.apply(story.events[0])
        #expect(try repository.record(story.originalTransactionId)?.status == .active)
        // Apple refunded it; the REFUND notification never arrived.
        story.refund()
        let lookup = AppleStatuses(answers: [story.originalTransactionId: [try Self.appleSays(story, status: 5)]])
        let clock = SystemTime(pinnedAt: Date(timeIntervalSince1970: Double(story.now) / 1000))
        let reconciler = Reconciler(store: store, bundleId: TestPKI.bundleId, lookup: lookup, verifier: try TestPKI.verifier(), clock: clock)
        var corrections: [Reconciler.Correction] = []
        reconciler.onCorrection = { corrections.append($0) }

        let first = try reconciler.run(.needsAttention, outOfTime: { false })
        #expect(first.asked == 1 && first.correctedTotal == 1 && first.failedTotal == 0, "\(first)")
        #expect(corrections.map(\.originalTransactionId) == [story.originalTransactionId])
        #expect(corrections.map(\.kind) == ["active→refunded"])
        #expect(try repository.record(story.originalTransactionId)?.status == .refunded)

        let second = try reconciler.run(.explicit([story.originalTransactionId]), outOfTime: { false })
        #expect(second.asked == 1 && second.correctedTotal == 0 && second.unchanged == 1, "\(second)")
        #expect(corrections.count == 1)
    }

    @Test func aSubscriptionAppleDoesNotKnowIsCountedAsFailedAndLeftAlone() throws {
        let store = MemoryStore()
        var story = LifecycleSimulator()
        story.subscribe()
        let repository = EntitlementRepository(store: store)
        _ = try repository.apply(story.events[0])
        let before = try repository.record(story.originalTransactionId)
        let reconciler = Reconciler(store: store, bundleId: TestPKI.bundleId, lookup: AppleStatuses(answers: [:]), verifier: try TestPKI.verifier(),
                                    clock: SystemTime(pinnedAt: Date(timeIntervalSince1970: Double(story.now) / 1000)))
        let report = try reconciler.run(.all, outOfTime: { false })
        #expect(report.correctedTotal == 0 && report.failedTotal == 1, "\(report)")
        #expect(try repository.record(story.originalTransactionId) == before)
    }
}
