import FoundationEssentials
import StorekeeperCore
import Testing

@Suite("Entitlement repository: appAccountToken owners")
struct EntitlementRepositoryTests {
    static let token = "5b1a0b44-2f0e-4f53-9d6e-2b8f8f0f3c11"

    /// A subscription that carried the token before its user was known, as `apply` leaves it.
    func storeWithAnUnownedPurchase() throws -> MemoryStore {
        let store = MemoryStore()
        _ = try store.addToSet(StoreKeys.appAccountTokenSubscriptions(Self.token), SubscriptionRef.testApp("1000000000000001").member)
        return store
    }

    @Test func assigningATokenLinksThePurchasesThatCarriedIt() throws {
        let repository = EntitlementRepository(store: try storeWithAnUnownedPurchase())
        #expect(try repository.assign(appAccountToken: Self.token, toUser: "user-1"))
        #expect(try repository.originalTransactionIds(ofUser: "user-1") == ["1000000000000001"])
        #expect(try !repository.assign(appAccountToken: Self.token, toUser: "user-2"), "the first owner keeps it")
        #expect(try repository.originalTransactionIds(ofUser: "user-2").isEmpty)
    }

    /// A run killed after the token was claimed but before the purchases were linked: the
    /// rerun, by the same user, finishes the links.
    @Test func aRerunAfterAKillBetweenTheClaimAndTheLinksLinks() throws {
        let store = try storeWithAnUnownedPurchase()
        #expect(try store.setIfAbsent(StoreKeys.appAccountToken(Self.token), Array("user-1".utf8), expiresIn: nil))
        let repository = EntitlementRepository(store: store)
        #expect(try repository.originalTransactionIds(ofUser: "user-1").isEmpty)

        #expect(try repository.assign(appAccountToken: Self.token, toUser: "user-1"))
        #expect(try repository.originalTransactionIds(ofUser: "user-1") == ["1000000000000001"])
        #expect(try !repository.assign(appAccountToken: Self.token, toUser: "user-2"))
        #expect(try repository.originalTransactionIds(ofUser: "user-2").isEmpty)
    }
}
