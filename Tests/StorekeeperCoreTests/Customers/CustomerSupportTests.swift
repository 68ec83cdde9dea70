import Foundation
import StorekeeperCore
import Testing

/// The support operations in process: grants and their revocation, deletion, merges, each a
/// line of the audit trail with who, when and why.
@Suite("Customer support: grants, deletion, merges, the audit trail")
struct CustomerSupportTests {
    static let token = "3e1f6a9c-2b4d-4c8e-9a1f-5d6e7f8a9b0c"
    let now = TestPKI.fixedTime
    var nowMilliseconds: Int64 { now.millisecondsSince1970 }

    func action(_ reason: String? = "support ticket 42", at offset: Int64 = 0) -> SupportAction {
        SupportAction(actor: "admin", date: nowMilliseconds + offset, reason: reason)
    }

    static let catalog = Catalog(apps: [CatalogApp(bundleId: "com.example.storekeeper", appAppleId: 1, environments: [.sandbox])],
                                 entitlements: ["pro": CatalogEntitlement()], products: [:])

    /// `userId` owns 2000000101 (with the token) and 2000000102.
    func storeWithPurchases(of userId: String) throws -> MemoryStore {
        let store = MemoryStore()
        var ingest = TransactionIngest(verifier: try TestPKI.verifier())
        let repository = EntitlementRepository(store: store)
        for (id, extra) in [("2000000101", ["appAccountToken": Self.token]), ("2000000102", [:])] {
            let jws = try TransactionIngestTests.signedTransaction(id, extra)
            _ = try ingest.apply(try ingest.verify(signedTransaction: jws, signedRenewalInfo: nil, now: now),
                                 userId: userId, to: repository, now: now)
        }
        return store
    }

    @Test func aGrantIsKeptWithItsAuditLineAndRevokedWithAnother() throws {
        let customers = CustomerRepository(store: MemoryStore())
        let grant = try customers.grant("pro", toUser: "user-1", bundleId: nil, expiresDate: nowMilliseconds + 86_400_000,
                                        catalog: Self.catalog, by: action())
        #expect(grant.isActive(at: nowMilliseconds))
        #expect(grant.grantedBy == "admin")
        let revoked = try customers.revokeGrant(grant.grantId, ofUser: "user-1", by: action("granted by mistake", at: 1000))
        #expect(revoked.revokedAt == nowMilliseconds + 1000)
        #expect(!revoked.isActive(at: nowMilliseconds + 2000))

        let record = try #require(try customers.record(ofUser: "user-1"))
        #expect(record.grants == [revoked])
        #expect(record.history.map(\.type) == ["GRANT_ADDED", "GRANT_REVOKED"])
        #expect(record.history.map(\.source) == ["support", "support"])
        #expect(record.history.map(\.actor) == ["admin", "admin"])
        #expect(record.history.map(\.reason) == ["support ticket 42", "granted by mistake"])
        #expect(record.history.map(\.entitlement) == ["pro", "pro"])

        let again = try customers.revokeGrant(grant.grantId, ofUser: "user-1", by: action("again", at: 5000))
        #expect(again.revokedAt == nowMilliseconds + 1000, "revoking twice changes nothing")
        #expect(try customers.record(ofUser: "user-1")?.history.count == 2)
    }

    /// Compare-and-set: grants made at the same moment by several processes all stay.
    @Test func concurrentGrantsToOneCustomerAreAllKept() throws {
        let store = MemoryStore()
        let failures = NSLock()
        nonisolated(unsafe) var failed: [String] = []
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            do {
                _ = try CustomerRepository(store: store).grant(
                    "pro", toUser: "user-1", bundleId: nil, expiresDate: nowMilliseconds + 1000, catalog: Self.catalog,
                    by: action("ticket \(index)"), grantId: "grant-\(index)")
            } catch {
                failures.withLock { failed.append("\(error)") }
            }
        }
        #expect(failed.isEmpty, "\(failed)")
        let record = try #require(try CustomerRepository(store: store).record(ofUser: "user-1"))
        #expect(Set(record.grants.map(\.grantId)) == Set((0..<8).map { "grant-\($0)" }))
        #expect(record.history.count == 8)
    }

    @Test func aGrantNeedsAnEntitlementAndAnAppOfTheCatalogAndAnEndAfterNow() throws {
        let customers = CustomerRepository(store: MemoryStore())
        func refusal(_ entitlement: String, bundleId: String? = nil, until: Int64? = nil, reason: String? = "r") -> String? {
            do {
                _ = try customers.grant(entitlement, toUser: "user-1", bundleId: bundleId,
                                        expiresDate: until ?? nowMilliseconds + 1, catalog: Self.catalog, by: action(reason))
                return nil
            } catch let error as SupportError {
                return error.code
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal("gold") == "unknown_entitlement")
        #expect(refusal("pro", bundleId: "com.example.other") == "invalid_request")
        #expect(refusal("pro", until: nowMilliseconds) == "invalid_request")
        #expect(refusal("pro", reason: nil) == "invalid_request")
        #expect(refusal("pro", bundleId: "com.example.storekeeper") == nil)
        #expect(try customers.record(ofUser: "user-1")?.grants.count == 1, "nothing was written for a refusal")

        let implied = Catalog.singleApp(bundleId: "com.example.storekeeper", appAppleId: nil, environments: [.sandbox])
        _ = try customers.grant("com.example.any.product", toUser: "user-2", bundleId: nil, expiresDate: nowMilliseconds + 1,
                                catalog: implied, by: action())
    }

    @Test func revokingAGrantTheCustomerDoesNotHaveIsGrantNotFound() throws {
        let customers = CustomerRepository(store: MemoryStore())
        #expect(throws: SupportError(.grantNotFound, "")) {
            try customers.revokeGrant("nope", ofUser: "user-1", by: action())
        }
    }

    @Test func deletionUnlinksThePurchasesKeepsThemAndLeavesATombstone() throws {
        let store = try storeWithPurchases(of: "user-1")
        let entitlements = EntitlementRepository(store: store)
        let account = AppleAccount(userId: "user-1", sub: "001234.abcd", appAccountToken: Self.token,
                                   createdAt: nowMilliseconds)
        try AccountRepository(store: store, dataKey: nil).save(account)
        _ = try store.set(StoreKeys.appleSubject("001234.abcd"), Array("user-1".utf8), expiresIn: nil)
        _ = try CustomerRepository(store: store).grant("pro", toUser: "user-1", bundleId: nil, expiresDate: nowMilliseconds + 1,
                                                       catalog: Self.catalog, by: action())

        let outcome = try CustomerDeletion(store: store).delete(userId: "user-1", by: action("asked to be forgotten", at: 10))
        #expect(outcome.subscriptionsUnlinked == 2)
        #expect(outcome.appAccountTokensReleased == 1)
        #expect(outcome.accountDeleted)
        #expect(try entitlements.originalTransactionIds(ofUser: "user-1").isEmpty)
        #expect(try entitlements.owner(of: .testApp("2000000101")) == nil)
        #expect(try entitlements.user(ofAppAccountToken: Self.token) == nil)
        #expect(try entitlements.record("2000000101") != nil, "the purchase facts stay")
        #expect(try entitlements.allSubscriptions().map(\.originalTransactionId) == ["2000000101", "2000000102"])
        #expect(try AccountRepository(store: store, dataKey: nil).account(userId: "user-1") == nil)
        #expect(try store.get(StoreKeys.appleSubject("001234.abcd")) == nil)

        let tombstone = try #require(try CustomerRepository(store: store).record(ofUser: "user-1"))
        #expect(tombstone.deletedAt == nowMilliseconds + 10)
        #expect(tombstone.grants.isEmpty)
        #expect(tombstone.history.last?.type == "CUSTOMER_DELETED")
        #expect(tombstone.history.last?.reason == "asked to be forgotten")
        #expect(throws: SupportError(.customerDeleted, "")) {
            try CustomerRepository(store: store).grant("pro", toUser: "user-1", bundleId: nil, expiresDate: nowMilliseconds + 100,
                                                       catalog: Self.catalog, by: action())
        }
        let rerun = try CustomerDeletion(store: store).delete(userId: "user-1", by: action("again", at: 20))
        #expect(rerun.alreadyDeleted)
        #expect(try CustomerRepository(store: store).record(ofUser: "user-1")?.deletedAt == nowMilliseconds + 10)
    }

    /// Killed after the tombstone, before anything was unlinked: the rerun finishes.
    @Test func aDeletionKilledHalfwayIsFinishedByARerun() throws {
        let store = try storeWithPurchases(of: "user-1")
        store.killAtWrite = { $0 == StoreKeys.appAccountToken(Self.token) }
        #expect(throws: StoreError.self) { try CustomerDeletion(store: store).delete(userId: "user-1", by: action()) }
        store.restart()
        let rerun = try CustomerDeletion(store: store).delete(userId: "user-1", by: action())
        #expect(rerun.alreadyDeleted)
        #expect(try EntitlementRepository(store: store).user(ofAppAccountToken: Self.token) == nil)
        #expect(try EntitlementRepository(store: store).originalTransactionIds(ofUser: "user-1").isEmpty)
    }

    @Test func deletingAnUnknownUserIsNotFound() throws {
        #expect(throws: SupportError(.customerNotFound, "")) {
            try CustomerDeletion(store: MemoryStore()).delete(userId: "nobody", by: action())
        }
    }

    @Test func aMergeMovesSubscriptionsTokensAndGrantsAndKeepsBothHistories() throws {
        let store = try storeWithPurchases(of: "anon-1")
        let customers = CustomerRepository(store: store)
        let grant = try customers.grant("pro", toUser: "anon-1", bundleId: nil, expiresDate: nowMilliseconds + 86_400_000,
                                        catalog: Self.catalog, by: action())
        let outcome = try CustomerMerge(store: store).merge("anon-1", into: "user-9", by: action("signed in", at: 5))
        #expect(outcome.subscriptionsMoved == 2)
        #expect(outcome.appAccountTokensMoved == 1)
        #expect(outcome.grantsMoved == 1)

        let entitlements = EntitlementRepository(store: store)
        #expect(try entitlements.originalTransactionIds(ofUser: "user-9") == ["2000000101", "2000000102"])
        #expect(try entitlements.originalTransactionIds(ofUser: "anon-1").isEmpty)
        #expect(try entitlements.owner(of: .testApp("2000000102")) == "user-9")
        #expect(try entitlements.user(ofAppAccountToken: Self.token) == "user-9")

        let target = try #require(try customers.record(ofUser: "user-9"))
        #expect(target.grants == [grant])
        #expect(target.aliases == ["anon-1"])
        #expect(target.history.map(\.type) == ["GRANT_ADDED", "MERGE"])
        #expect(target.history.last?.otherUserId == "anon-1")
        let source = try #require(try customers.record(ofUser: "anon-1"))
        #expect(source.mergedInto == "user-9")
        #expect(source.grants.isEmpty)
        #expect(source.history.map(\.type) == ["GRANT_ADDED", "MERGE"])

        let rerun = try CustomerMerge(store: store).merge("anon-1", into: "user-9", by: action("signed in", at: 6))
        #expect(rerun.subscriptionsMoved == 0)
        #expect(try customers.record(ofUser: "user-9") == target, "a rerun adds nothing")
        #expect(throws: SupportError(.alreadyMerged, "")) {
            try CustomerMerge(store: store).merge("anon-1", into: "user-8", by: action())
        }
        #expect(throws: SupportError(.alreadyMerged, ""), "a grant goes to the user the id was merged into") {
            try customers.grant("pro", toUser: "anon-1", bundleId: nil, expiresDate: nowMilliseconds + 1, catalog: Self.catalog, by: action())
        }
    }

    /// Killed while moving the subscriptions: the rerun finishes the move.
    @Test func aMergeKilledHalfwayIsFinishedByARerun() throws {
        let store = try storeWithPurchases(of: "anon-1")
        store.killAtWrite = { $0 == StoreKeys.owner(.testApp("2000000102")) }
        #expect(throws: StoreError.self) { try CustomerMerge(store: store).merge("anon-1", into: "user-9", by: action()) }
        store.restart()
        #expect(try EntitlementRepository(store: store).owner(of: .testApp("2000000102")) == "anon-1")
        _ = try CustomerMerge(store: store).merge("anon-1", into: "user-9", by: action())
        let entitlements = EntitlementRepository(store: store)
        #expect(try entitlements.originalTransactionIds(ofUser: "user-9") == ["2000000101", "2000000102"])
        #expect(try entitlements.originalTransactionIds(ofUser: "anon-1").isEmpty)
    }
}
