import Foundation
import StorekeeperCore
import StorekeeperTesting
import Testing

/// Events recorded with each change and relayed into the log, on the real stores: what
/// EventRecordingTests shows on MemoryStore holds on SQLite and on Redis (where the record's
/// outbox and the log live in different hash slots, joined only by the relay).
@Suite struct EventRecordingStoreTests {
    static let catalog = Catalog(apps: [], entitlements: [:], products: [:], productsImplied: true)
    static let now: Int64 = 1_780_272_000_000

    struct Clock: TimeSource {
        func now() -> Date { Date(millisecondsSince1970: EventRecordingStoreTests.now) }
        func realNow() -> Date { Date() }
        func monotonic() -> Duration { .seconds(Date().timeIntervalSince1970) }
        func sleep(for duration: Duration) {}
    }

    static func events(_ store: any KeyValueStore) throws -> [Event] {
        try EventLog(store: store).events(after: 0, limit: 1_000)
    }

    @Test(arguments: StoreBackend.all)
    func aLifecycleIsRecordedInOrderWithIncreasingVersions(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let repository = EntitlementRepository(store: store, events: EventRecording(catalog: Self.catalog, time: Clock()))
        #expect(try repository.assign(appAccountToken: "10000000-1111-4222-8333-000000000001", toUser: "user-1"))
        var story = LifecycleSimulator(originalTransactionId: "1")
        story.appAccountToken = "10000000-1111-4222-8333-000000000001"
        story.subscribe()
        story.renew()
        story.setAutoRenew(false)
        story.refund()
        for fact in story.events { try repository.apply(fact) }
        let log = try Self.events(store)
        #expect(log.map(\.type) == ["INITIAL_PURCHASE", "RENEWAL", "CANCELLATION", "REFUND"])
        #expect(log.map(\.sequence) == [1, 2, 3, 4])
        #expect(log.map(\.customerVersion) == [1, 2, 3, 4])
        #expect(log.allSatisfy { $0.customerId == "user-1" })
        #expect(try store.setMembers(StoreKeys.eventOutboxes).isEmpty)
        #expect(try store.logStreamVersion(StoreKeys.eventLog, stream: "user-1") == 4)
        // Apple sends it all again: nothing changes, nothing is recorded.
        for fact in story.events { try repository.apply(fact) }
        #expect(try Self.events(store).count == 4)
    }

    @Test(arguments: StoreBackend.all)
    func eventsLeftInOutboxesAreRelayedOnceByWhicheverRelayComes(backend: StoreBackend) throws {
        let locator = try backend.makeLocator()
        let store = try backend.open(locator)
        for original in ["10", "11", "12"] {
            var story = LifecycleSimulator(originalTransactionId: original)
            story.subscribe()
            story.renew()
            for fact in story.events { try EntitlementRepository(store: store).apply(fact) }
        }
        #expect(try Self.events(store).isEmpty)
        #expect(try store.setMembers(StoreKeys.eventOutboxes).count == 6)
        // Two relays on two connections of the same store: each event appended once.
        let other = try backend.open(locator)
        let first = try EventRelay(store: store, catalog: Self.catalog).relayPending(now: Self.now)
        let second = try EventRelay(store: other, catalog: Self.catalog).relayPending(now: Self.now)
        #expect(first + second == 6)
        let log = try Self.events(store)
        #expect(log.count == 6 && Set(log.map(\.id)).count == 6)
        #expect(log.map(\.sequence) == Array(1...6))
        for original in ["10", "11", "12"] {
            let mine = log.filter { $0.customerId == "otid:\(original)" }
            #expect(mine.map(\.type) == ["INITIAL_PURCHASE", "RENEWAL"] && mine.map(\.customerVersion) == [1, 2])
        }
        #expect(try store.setMembers(StoreKeys.eventOutboxes).isEmpty)
    }

    @Test(arguments: StoreBackend.all)
    func aPurchaseLinkedLaterIsATransferAndNotificationOnlyEventsAreKept(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let recording = EventRecording(catalog: Self.catalog, time: Clock())
        let repository = EntitlementRepository(store: store, events: recording)
        try CustomerRepository(store: store, events: recording)
            .grant("pro", toUser: "user-2", bundleId: nil, expiresDate: 1_790_000_000_000, catalog: Self.catalog,
                   by: SupportAction(actor: "admin", date: Self.now, reason: "beta tester"), grantId: "g1")
        var story = LifecycleSimulator(originalTransactionId: "2")
        story.subscribe()
        try repository.apply(story.events[0])
        #expect(try repository.assign(appAccountToken: story.appAccountToken, toUser: "user-2"))
        let test = AppleFact(.notification(notificationUUID: "test-1", signedDate: Self.now, type: "TEST", subtype: nil,
                                           bundleId: "com.example.storekeeper"), transaction: nil, renewalInfo: nil)
        try repository.apply(test)
        try repository.apply(test)
        let log = try Self.events(store)
        #expect(log.map(\.type) == ["GRANT_ADDED", "INITIAL_PURCHASE", "TRANSFER", "TEST"])
        #expect(log.map(\.customerId) == ["user-2", "otid:2", "user-2", nil])
        #expect(log[2].previousCustomerId == "otid:2")
        #expect(log.map(\.customerVersion) == [1, 1, 2, nil], "the user's version continues from the grant")
        #expect(try store.logStreamVersion(StoreKeys.eventLog, stream: "user-2") == 2)
    }
}

extension EventRecordingStoreTests {
    /// Relays in several processes at once over the same outboxes (process-notifications,
    /// deliver-events and list-events all relay first): each event enters the log once, and
    /// each customer's versions are dense and in sequence order.
    @Test(arguments: StoreBackend.all)
    func relaysInSeveralProcessesAtOnceAppendEachEventOnce(backend: StoreBackend) async throws {
        let locator = try backend.makeLocator()
        let store = try backend.open(locator)
        let customers = 12
        for customer in 0..<customers {
            var story = LifecycleSimulator(originalTransactionId: String(900 + customer))
            story.subscribe()
            story.renew()
            story.setAutoRenew(false)
            story.renew()
            for fact in story.events { try EntitlementRepository(store: store).apply(fact) }
        }
        let waiting = try store.setMembers(StoreKeys.eventOutboxes).count
        #expect(waiting == customers * 4)
        let results = try await StressProcess.runTogether(Array(repeating: ["relay", locator], count: 4))
        for result in results {
            #expect(result.exitCode == 0, "store-stress relay \(result.processIdentifier): \(result.stderr)")
        }
        let appended = results.compactMap { Int($0.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(appended.reduce(0, +) == waiting, "appended per process: \(appended)")
        print("\(backend.name): 4 relays at once appended \(appended) of \(waiting) events")
        let log = try Self.events(store)
        #expect(log.map(\.sequence) == Array(1...Int64(waiting)))
        #expect(Set(log.map(\.id)).count == waiting)
        for customer in 0..<customers {
            let mine = log.filter { $0.customerId == "otid:\(900 + customer)" }
            #expect(mine.map(\.customerVersion) == [1, 2, 3, 4], "otid:\(900 + customer)")
            #expect(mine.map(\.type) == ["INITIAL_PURCHASE", "RENEWAL", "CANCELLATION", "RENEWAL"])
        }
        #expect(try store.setMembers(StoreKeys.eventOutboxes).isEmpty)
    }
}
