import Foundation
import StorekeeperCore
import Testing

@Suite("EntitlementLookup: by user, appAccountToken or original transaction id, in process")
struct EntitlementLookupTests {
    static let token = TransactionIngestTests.token
    let now = TestPKI.fixedTime

    /// user-1 owns 2000000001 (active) and, through the token, 2000000002 (lapsed);
    /// 2000000003 carries the token of nobody yet.
    func populatedStore() throws -> MemoryStore {
        let store = MemoryStore()
        var ingest = TransactionIngest(verifier: try TestPKI.verifier())
        let repository = EntitlementRepository(store: store)
        func add(_ jws: String, userId: String?) throws {
            _ = try ingest.apply(try ingest.verify(signedTransaction: jws, signedRenewalInfo: nil, now: now),
                                 userId: userId, to: repository, now: now)
        }
        try add(try TransactionIngestTests.signedTransaction("2000000001"), userId: "user-1")
        try add(try TransactionIngestTests.signedTransaction("2000000002", expiresIn: -86_400_000, ["appAccountToken": Self.token]), userId: "user-1")
        try add(try TransactionIngestTests.signedTransaction("2000000003", ["appAccountToken": "0f6b2a33-1111-4222-8333-944455556666"]), userId: nil)
        return store
    }

    func lookUp(_ key: EntitlementLookup.Key, in store: MemoryStore) throws -> EntitlementLookup.Answer {
        try EntitlementLookup(repository: EntitlementRepository(store: store)).entitlements(of: key, now: now)
    }

    @Test func byUserAnswersEverySubscriptionOfTheUser() throws {
        let answer = try lookUp(.user("user-1"), in: try populatedStore())
        #expect(answer.userId == "user-1")
        #expect(answer.entitlements.map(\.originalTransactionId) == ["2000000001", "2000000002"])
        #expect(answer.entitlements.map(\.active) == [true, false])
        #expect(answer.active)
    }

    @Test func byAppAccountTokenFindsItsOwnerAndTheOwnersSubscriptions() throws {
        let answer = try lookUp(.appAccountToken(Self.token), in: try populatedStore())
        #expect(answer.userId == "user-1")
        #expect(answer.entitlements.map(\.originalTransactionId) == ["2000000001", "2000000002"])
        #expect(answer.active)

        let unowned = try lookUp(.appAccountToken("0f6b2a33-1111-4222-8333-944455556666"), in: try populatedStore())
        #expect(unowned.userId == nil, "nobody was handed that token")
        #expect(unowned.entitlements.map(\.originalTransactionId) == ["2000000003"])
    }

    @Test func byOriginalTransactionIdAnswersThatSubscriptionWithoutAUser() throws {
        let answer = try lookUp(.originalTransactionId("2000000002", bundleIds: [TestPKI.bundleId]), in: try populatedStore())
        #expect(answer.userId == nil)
        #expect(answer.entitlements.map(\.originalTransactionId) == ["2000000002"])
        #expect(!answer.active)
    }

    @Test func anUnknownUserHasNoEntitlementsAndIsNotAnError() throws {
        let answer = try lookUp(.user("nobody"), in: try populatedStore())
        #expect(answer.userId == "nobody")
        #expect(!answer.active)
        #expect(answer.entitlements.isEmpty)
        #expect(try lookUp(.originalTransactionId("1999", bundleIds: [TestPKI.bundleId]), in: try populatedStore()).entitlements.isEmpty)
    }
}
