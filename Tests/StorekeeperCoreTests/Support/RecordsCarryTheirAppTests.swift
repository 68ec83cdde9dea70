import FoundationEssentials
@testable import StorekeeperCore
import Testing

/// The migration to layout 2 in process: records move under their app, sets hold references,
/// and a run killed half way or run twice leaves every record once and never overwrites a newer copy.
@Suite struct RecordsCarryTheirAppTests {
    static let context = StoreMigrationContext(legacyBundleId: TestPKI.bundleId)

    /// A layout-1 store: one owned subscription that carried a token, one nobody owns.
    static func story() -> LifecycleSimulator {
        var story = LifecycleSimulator()
        story.subscribe()
        return story
    }

    static func legacyStore() throws -> MemoryStore {
        let store = MemoryStore()
        let story = Self.story()
        let record = try #require(try EntitlementEngine.apply(story.events[0], to: nil).record)
        let bytes = Array(try JSONEncoder().encode(record))
        for id in ["1", "2"] {
            _ = try store.addToSet(StoreKeys.LayoutV1.entitlementIndex, id)
            try store.set(StoreKeys.LayoutV1.entitlement(id), bytes, expiresIn: nil)
        }
        try store.set(StoreKeys.LayoutV1.owner("1"), Array("user-1".utf8), expiresIn: nil)
        _ = try store.addToSet(StoreKeys.LayoutV1.userTransactions("user-1"), "1")
        return store
    }

    @Test func recordsMoveUnderTheirAppAndTheSetsHoldReferences() throws {
        let store = try Self.legacyStore()
        try RecordsCarryTheirApp.run(store, Self.context)
        let repository = EntitlementRepository(store: store)
        #expect(try repository.allSubscriptions() == [.testApp("1"), .testApp("2")])
        #expect(try repository.record(.testApp("1")) != nil)
        #expect(try repository.subscriptions(ofUser: "user-1") == [.testApp("1")])
        #expect(try repository.owner(of: .testApp("1")) == "user-1")
        #expect(try repository.subscriptions(ofAppAccountToken: Self.story().appAccountToken) == [.testApp("1"), .testApp("2")])
        #expect(try store.get(StoreKeys.LayoutV1.entitlement("1")) == nil)
        #expect(try store.setMembers(StoreKeys.LayoutV1.entitlementIndex).isEmpty)
    }

    @Test func runningAgainAfterANewerWriteChangesNothing() throws {
        let store = try Self.legacyStore()
        // Killed half way: the first subscription's copy exists, its old keys too.
        _ = try store.setIfAbsent(StoreKeys.entitlement(.testApp("1")), Array("newer".utf8), expiresIn: nil)
        try RecordsCarryTheirApp.run(store, Self.context)
        try RecordsCarryTheirApp.run(store, Self.context)
        #expect(try store.get(StoreKeys.entitlement(.testApp("1")))?.bytes == Array("newer".utf8), "a newer copy is never overwritten")
        #expect(try store.get(StoreKeys.entitlement(.testApp("2"))) != nil)
    }

    @Test func withoutTheLegacyAppALegacyStoreIsAConfigurationErrorAndAnEmptyOneIsFine() throws {
        let error = #expect(throws: StoreError.self) {
            try RecordsCarryTheirApp.run(try Self.legacyStore(), StoreMigrationContext(legacyBundleId: nil))
        }
        #expect(error?.kind == .invalidConfiguration)
        try RecordsCarryTheirApp.run(MemoryStore(), StoreMigrationContext(legacyBundleId: nil))
    }
}
