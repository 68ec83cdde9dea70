import Foundation
import StorekeeperCore
import Testing

/// Every change records one event with it (in the changed record's outbox, by the same
/// compare-and-set), the relay moves it into the log once, in order, with the customer's
/// state and version; what changes nothing records nothing.
@Suite("Events: recorded with the change, relayed once")
struct EventRecordingTests {
    static let catalog = Catalog(apps: [], entitlements: [:], products: [:], productsImplied: true)

    struct Clock: TimeSource {
        var at: Date
        func now() -> Date { at }
        func realNow() -> Date { Date() }
        func monotonic() -> Duration { .seconds(Date().timeIntervalSince1970) }
        func sleep(for duration: Duration) {}
    }

    static func recording(at milliseconds: Int64 = 1_780_272_000_000) -> EventRecording {
        EventRecording(catalog: catalog, time: Clock(at: Date(millisecondsSince1970: milliseconds)))
    }

    func events(in store: MemoryStore) throws -> [Event] {
        try EventLog(store: store).events(after: 0, limit: 1000)
    }

    @Test func aLifecycleIsOneEventPerChangeInOrderWithIncreasingVersions() throws {
        let store = MemoryStore()
        let repository = EntitlementRepository(store: store, events: Self.recording())
        #expect(try repository.assign(appAccountToken: "10000000-1111-4222-8333-000000000001", toUser: "user-1"))
        var story = LifecycleSimulator(originalTransactionId: "1")
        story.appAccountToken = "10000000-1111-4222-8333-000000000001"
        story.subscribe()
        story.renew()
        story.setAutoRenew(false)
        story.expire()
        for fact in story.events { try repository.apply(fact) }
        let log = try events(in: store)
        #expect(log.map(\.type) == ["INITIAL_PURCHASE", "RENEWAL", "CANCELLATION", "EXPIRATION"])
        #expect(log.map(\.sequence) == [1, 2, 3, 4])
        #expect(log.map(\.customerVersion) == [1, 2, 3, 4])
        #expect(log.allSatisfy { $0.customerId == "user-1" && $0.userId == "user-1" })
        #expect(log.map(\.notificationType) == ["SUBSCRIBED", "DID_RENEW", "DID_CHANGE_RENEWAL_STATUS", "EXPIRED"])
        #expect(log.allSatisfy { $0.source == "notification" && $0.app == "com.example.storekeeper" && $0.environment == "Sandbox" })
        #expect(Set(log.map(\.id)).count == 4)
        // The customer state after each change, as get-customer answers it.
        guard case .object(let last)? = log.last?.customer, case .object(let subscriptions)? = last["subscriptions"],
              case .object(let monthly)? = subscriptions["com.example.pro.monthly"] else {
            Issue.record("no customer state in \(String(describing: log.last?.customer))")
            return
        }
        #expect(monthly["status"] == .string("expired"))
        #expect(last["history"] == nil, "the timeline is the events themselves")
        #expect(try store.setMembers(StoreKeys.eventOutboxes).isEmpty, "relayed at once, markers gone")
        #expect(try repository.record(SubscriptionRef.testApp("1"))?.outbox.map(\.type) == ["EXPIRATION"],
                "each write takes out the events already in the log; the last waits for the next write")

        // Apple sends everything again: nothing changes, nothing is recorded.
        for fact in story.events { try repository.apply(fact) }
        #expect(try events(in: store).count == 4)
    }

    @Test func anAnonymousPurchaseLinkedLaterIsATransferAndTheUsersVersionGoesOn() throws {
        let store = MemoryStore()
        let repository = EntitlementRepository(store: store, events: Self.recording())
        try CustomerRepository(store: store, events: Self.recording())
            .grant("pro", toUser: "user-2", bundleId: nil, expiresDate: 1_790_000_000_000, catalog: Self.catalog,
                   by: SupportAction(actor: "admin", date: 1_780_272_000_000, reason: "beta tester"), grantId: "g1")
        var story = LifecycleSimulator(originalTransactionId: "2")
        story.subscribe()
        try repository.apply(story.events[0])
        #expect(try repository.assign(appAccountToken: story.appAccountToken, toUser: "user-2"))
        let log = try events(in: store)
        #expect(log.map(\.type) == ["GRANT_ADDED", "INITIAL_PURCHASE", "TRANSFER"])
        #expect(log.map(\.customerId) == ["user-2", "otid:2", "user-2"])
        #expect(log[1].userId == nil)
        #expect(log[2].previousCustomerId == "otid:2")
        #expect(log.map(\.customerVersion) == [1, 1, 2], "the user's version continues from the grant")
    }

    @Test func aKillBeforeTheWriteRecordsNeitherAndAKillAfterItIsFinishedByTheRelay() throws {
        let store = MemoryStore()
        var story = LifecycleSimulator(originalTransactionId: "3")
        story.subscribe()
        store.killAtWrite = { $0.contains(":entitlement:") }
        #expect(throws: (any Error).self) { try EntitlementRepository(store: store, events: Self.recording()).apply(story.events[0]) }
        store.restart()
        #expect(try EntitlementRepository(store: store).record(SubscriptionRef.testApp("3")) == nil)
        #expect(try events(in: store).isEmpty)

        // Written, then the relay fails (killed before it, or the log unreachable): the change
        // stands and its event waits in the record's outbox.
        store.killAtWrite = { $0 == StoreKeys.eventLog }
        try EntitlementRepository(store: store, events: Self.recording()).apply(story.events[0])
        store.restart()
        #expect(try EntitlementRepository(store: store).record(SubscriptionRef.testApp("3"))?.outbox.map(\.type) == ["INITIAL_PURCHASE"])
        #expect(try events(in: store).isEmpty)
        #expect(try EventRelay(store: store, catalog: Self.catalog).relayPending(now: 1_780_272_000_000) == 1)
        #expect(try EventRelay(store: store, catalog: Self.catalog).relayPending(now: 1_780_272_000_000) == 0, "once")
        #expect(try events(in: store).map(\.type) == ["INITIAL_PURCHASE"])
        #expect(try store.setMembers(StoreKeys.eventOutboxes).isEmpty)
        // In the log, still in the outbox: the record's next write takes it out, once.
        #expect(try EntitlementRepository(store: store).record(SubscriptionRef.testApp("3"))?.outbox.map(\.type) == ["INITIAL_PURCHASE"])
        story.renew()
        try EntitlementRepository(store: store, events: Self.recording()).apply(story.events[1])
        #expect(try EntitlementRepository(store: store).record(SubscriptionRef.testApp("3"))?.outbox.map(\.type) == ["RENEWAL"])
        #expect(try events(in: store).map(\.type) == ["INITIAL_PURCHASE", "RENEWAL"])
    }

    @Test func withoutARecordingTheEventsWaitForTheRelay() throws {
        let store = MemoryStore()
        var story = LifecycleSimulator(originalTransactionId: "4")
        story.subscribe()
        story.refund()
        for fact in story.events { try EntitlementRepository(store: store).apply(fact) }
        #expect(try events(in: store).isEmpty)
        #expect(try store.setMembers(StoreKeys.eventOutboxes).count == 2)
        try EventRelay(store: store, catalog: Self.catalog).relayPending(now: 1_780_272_000_000)
        #expect(try events(in: store).map(\.type) == ["INITIAL_PURCHASE", "REFUND"])
    }

    @Test func notificationsTheAppMustActOnAreEventsOfTheirOwnOnce() throws {
        let store = MemoryStore()
        let repository = EntitlementRepository(store: store, events: Self.recording())
        var story = LifecycleSimulator(originalTransactionId: "5")
        story.subscribe()
        try repository.apply(story.events[0])
        let request = Self.consumptionRequest(about: story.events[0], id: "consumption-1")
        try repository.apply(request)
        try repository.apply(request)
        let test = AppleFact(.notification(notificationUUID: "test-1", signedDate: 1_780_272_000_000, type: "TEST", subtype: nil,
                                           bundleId: "com.example.storekeeper"), transaction: nil, renewalInfo: nil)
        try repository.apply(test)
        let log = try events(in: store)
        #expect(log.map(\.type) == ["INITIAL_PURCHASE", "CONSUMPTION_REQUEST", "TEST"])
        #expect(log[1].customerId == "otid:5" && log[1].notificationUUID == "consumption-1")
        #expect(log[2].customerId == nil && log[2].customer == nil)
    }

    /// Apple's CONSUMPTION_REQUEST about the purchase `fact` made.
    static func consumptionRequest(about fact: AppleFact, id: String) -> AppleFact {
        var request = fact
        request.id = id
        request.type = "CONSUMPTION_REQUEST"
        request.subtype = nil
        return request
    }

    @Test func aConsumablesRefundRequestIsAnEventOfItsPurchasesCustomerOnce() throws {
        let store = MemoryStore()
        let repository = EntitlementRepository(store: store, events: Self.recording())
        var coins = LifecycleSimulator(originalTransactionId: "9", productType: "Consumable")
        coins.subscribe()
        try repository.apply(coins.events[0], userId: "user-9")
        let request = Self.consumptionRequest(about: coins.events[0], id: "consumption-9")
        try repository.apply(request)
        try repository.apply(request)
        let log = try events(in: store)
        #expect(log.map(\.type) == ["CONSUMABLE_PURCHASE", "CONSUMPTION_REQUEST"])
        #expect(log[1].customerId == "user-9" && log[1].notificationUUID == "consumption-9")
        #expect(log[1].transactionId == log[0].transactionId && log[1].productId == log[0].productId)
        #expect(log.map(\.customerVersion) == [1, 2])
    }

    @Test func reconciliationThatChangesNothingVisibleRecordsNothing() throws {
        let store = MemoryStore()
        let repository = EntitlementRepository(store: store, events: Self.recording())
        var story = LifecycleSimulator(originalTransactionId: "6")
        story.subscribe()
        try repository.apply(story.events[0])
        // Apple's daily answer: the same period, signed again later.
        var transaction = story.latest
        transaction.signedDate = (transaction.signedDate ?? 0) + 3_600_000
        try repository.apply(AppleFact(.reconciliation(originalTransactionId: "6"), transaction: transaction, renewalInfo: nil))
        #expect(try events(in: store).map(\.type) == ["INITIAL_PURCHASE"])
        // A correction is an event, typed by what changed.
        transaction.signedDate = (transaction.signedDate ?? 0) + 3_600_000
        transaction.revocationDate = transaction.signedDate
        transaction.revocationReason = RevocationReason(rawValue: 0)
        try repository.apply(AppleFact(.reconciliation(originalTransactionId: "6"), transaction: transaction, renewalInfo: nil))
        let log = try events(in: store)
        #expect(log.map(\.type) == ["INITIAL_PURCHASE", "REFUND"])
        #expect(log.last?.source == "reconciliation" && log.last?.notificationUUID == nil)
    }

    @Test func aMergeAndADeletionMoveThePurchasesEventsWithATransferEach() throws {
        let store = MemoryStore()
        let repository = EntitlementRepository(store: store, events: Self.recording())
        var story = LifecycleSimulator(originalTransactionId: "7")
        story.subscribe()
        try repository.apply(story.events[0], userId: "anonymous-7")
        var coins = LifecycleSimulator(originalTransactionId: "8", productType: "Consumable")
        coins.subscribe()
        try repository.apply(coins.events[0], userId: "anonymous-7")
        let action = SupportAction(actor: "admin", date: 1_780_272_100_000, reason: "signed in")
        _ = try CustomerMerge(store: store).merge("anonymous-7", into: "user-7", by: action)
        _ = try CustomerMerge(store: store).merge("anonymous-7", into: "user-7", by: action)
        _ = try CustomerDeletion(store: store).delete(userId: "user-7", by: action)
        _ = try CustomerDeletion(store: store).delete(userId: "user-7", by: action)
        try EventRelay(store: store, catalog: Self.catalog).relayPending(now: 1_780_272_100_000)
        let log = try events(in: store)
        #expect(log.map(\.type) == ["INITIAL_PURCHASE", "CONSUMABLE_PURCHASE", "TRANSFER", "TRANSFER", "TRANSFER", "TRANSFER"])
        // Relayed later (these functions leave their events to the next relay), each purchase's
        // moves are in order; the two purchases' may interleave either way.
        for (id, anonymous) in [("7", "otid:7"), ("8", "otid:8")] {
            let moves = log.filter { $0.originalTransactionId == id }
            #expect(moves.map(\.customerId) == ["anonymous-7", "user-7", anonymous], "\(id)")
            #expect(moves.map(\.previousCustomerId) == [nil, "anonymous-7", "user-7"], "\(id)")
        }
        #expect(log.filter { $0.customerId == "user-7" }.map(\.customerVersion) == [1, 2])
        #expect(try store.setMembers(StoreKeys.eventOutboxes).isEmpty)
    }
}
