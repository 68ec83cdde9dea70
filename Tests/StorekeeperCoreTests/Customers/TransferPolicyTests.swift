import Foundation
import StorekeeperCore
import Testing

/// A purchase linked to one user arriving for another: the app's transfer policy decides.
@Suite("Transfers: keep-first and move-to-latest")
struct TransferPolicyTests {
    static let token = "8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d"
    let now = TestPKI.fixedTime

    static func catalog(_ policy: TransferPolicy) -> Catalog {
        Catalog(apps: [CatalogApp(bundleId: TestPKI.bundleId, appAppleId: 1, environments: [.sandbox], transfer: policy)],
                entitlements: [:], products: [:], productsImplied: true)
    }

    func repository(_ store: MemoryStore, _ policy: TransferPolicy) -> EntitlementRepository {
        EntitlementRepository(store: store, transfers: TransferContext(catalog: Self.catalog(policy), actor: "admin",
                                                                       date: now.millisecondsSince1970))
    }

    /// user-a bought 2000000201 carrying user-a's token; then the same purchase arrives for user-b.
    func purchaseArrivesForASecondUser(_ policy: TransferPolicy) throws -> MemoryStore {
        let store = MemoryStore()
        var ingest = TransactionIngest(verifier: try TestPKI.verifier())
        let purchase = try ingest.verify(signedTransaction: try TransactionIngestTests.signedTransaction("2000000201", ["appAccountToken": Self.token]),
                                         signedRenewalInfo: nil, now: now)
        _ = try ingest.apply(purchase, userId: "user-a", to: repository(store, policy), now: now)
        _ = try ingest.apply(purchase, userId: "user-b", to: repository(store, policy), now: now)
        return store
    }

    @Test func keepFirstLeavesThePurchaseWithItsFirstOwnerAndRecordsNothing() throws {
        let store = try purchaseArrivesForASecondUser(.keepFirst)
        let entitlements = EntitlementRepository(store: store)
        #expect(try entitlements.owner(of: .testApp("2000000201")) == "user-a")
        #expect(try entitlements.originalTransactionIds(ofUser: "user-a") == ["2000000201"])
        #expect(try entitlements.originalTransactionIds(ofUser: "user-b").isEmpty)
        #expect(try CustomerRepository(store: store).record(ofUser: "user-a") == nil)
        #expect(try CustomerRepository(store: store).record(ofUser: "user-b") == nil)
    }

    @Test func moveToLatestMovesItAndBothHistoriesSaySo() throws {
        let store = try purchaseArrivesForASecondUser(.moveToLatest)
        let entitlements = EntitlementRepository(store: store)
        #expect(try entitlements.owner(of: .testApp("2000000201")) == "user-b")
        #expect(try entitlements.originalTransactionIds(ofUser: "user-a").isEmpty)
        #expect(try entitlements.originalTransactionIds(ofUser: "user-b") == ["2000000201"])
        let out = try #require(try CustomerRepository(store: store).record(ofUser: "user-a")?.history.last)
        let into = try #require(try CustomerRepository(store: store).record(ofUser: "user-b")?.history.last)
        #expect(out.type == "TRANSFER" && out.subtype == "TRANSFERRED_OUT" && out.otherUserId == "user-b")
        #expect(into.type == "TRANSFER" && into.subtype == "TRANSFERRED_IN" && into.otherUserId == "user-a")
        #expect(into.transactionId == "2000000201")
        #expect(into.actor == "admin" && into.date == now.millisecondsSince1970 && into.source == "support")
    }

    /// After the move, a notification still carrying the first user's token does not move
    /// the purchase back: only a claim made now (a userId, an ingested transaction) moves it.
    @Test func aNotificationWithTheOldTokenDoesNotMoveItBack() throws {
        let store = try purchaseArrivesForASecondUser(.moveToLatest)
        let purchase = try TransactionIngest(verifier: try TestPKI.verifier())
            .verify(signedTransaction: try TransactionIngestTests.signedTransaction("2000000201", ["appAccountToken": Self.token]),
                    signedRenewalInfo: nil, now: now)
        let renewal = AppleFact(.notification(notificationUUID: "n-201", signedDate: now.millisecondsSince1970 + 1000,
                                              type: "DID_RENEW", subtype: nil),
                                transaction: purchase.transaction, renewalInfo: nil)
        _ = try repository(store, .moveToLatest).apply(renewal)
        #expect(try EntitlementRepository(store: store).owner(of: .testApp("2000000201")) == "user-b")
    }

    @Test func theDecisionItself() {
        #expect(TransferPolicy.keepFirst.decide(owner: "a", claimant: "b", mayTransfer: true) == .keep(owner: "a"))
        #expect(TransferPolicy.moveToLatest.decide(owner: "a", claimant: "b", mayTransfer: true) == .move(from: "a"))
        #expect(TransferPolicy.moveToLatest.decide(owner: "a", claimant: "b", mayTransfer: false) == .keep(owner: "a"))
        #expect(TransferPolicy.moveToLatest.decide(owner: "a", claimant: "a", mayTransfer: true) == .link)
        #expect(TransferPolicy.keepFirst.decide(owner: nil, claimant: "a", mayTransfer: false) == .link)
    }
}
