import Foundation
import StorekeeperCore
import Testing

@Suite("TransactionIngest: a signed transaction from the app's backend, in process")
struct TransactionIngestTests {
    static let token = "7c7a1c5e-8d1f-4b8e-9f0a-0c4d2e6b9a11"
    let now = TestPKI.fixedTime

    /// A monthly subscription `id`, signed with the test PKI; `extra` adds or replaces fields.
    static func signedTransaction(_ id: String = "2000000001", expiresIn milliseconds: Int64 = 2_592_000_000,
                                  _ extra: [String: Any] = [:]) throws -> String {
        var payload = TestPKI.transaction()
        payload["transactionId"] = id
        payload["originalTransactionId"] = id
        payload["expiresDate"] = TestPKI.fixedTimeMilliseconds + milliseconds
        payload.merge(extra) { $1 }
        return try TestPKI.sign(payload)
    }

    func ingest(_ jws: String, renewal: String? = nil, userId: String? = nil,
                with ingest: inout TransactionIngest, store: MemoryStore) throws -> TransactionIngest.Outcome {
        let purchase = try ingest.verify(signedTransaction: jws, signedRenewalInfo: renewal, now: now)
        return try ingest.apply(purchase, userId: userId, to: EntitlementRepository(store: store), now: now)
    }

    @Test func appliesAVerifiedTransactionOnceAndAnswersItsEntitlement() throws {
        var ingest = TransactionIngest(verifier: try TestPKI.verifier())
        let store = MemoryStore()
        let jws = try Self.signedTransaction()
        let first = try self.ingest(jws, renewal: try TestPKI.sign(TestPKI.renewalInfo()), with: &ingest, store: store)
        #expect(first.outcome == .applied)
        #expect(first.userId == nil)
        #expect(first.active)
        #expect(first.entitlements.map(\.originalTransactionId) == ["2000000001"])
        #expect(first.entitlements.first?.autoRenew == true, "the renewal info was applied with it")
        #expect(try EntitlementRepository(store: store).record("2000000001") != nil)

        let again = try self.ingest(jws, with: &ingest, store: store)
        #expect(again.outcome == .duplicate)
        #expect(again.entitlements == first.entitlements)
    }

    @Test func theAnswerEncodesOnlyItsWireFields() throws {
        var ingest = TransactionIngest(verifier: try TestPKI.verifier())
        let outcome = try self.ingest(try Self.signedTransaction(), userId: "user-1", with: &ingest, store: MemoryStore())
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(outcome)) as? [String: Any])
        #expect(object.keys.sorted() == ["active", "entitlements", "outcome", "userId"])
        #expect(object["outcome"] as? String == "applied")
    }

    @Test func refusesRenewalInfoOfAnotherSubscription() throws {
        let ingest = TransactionIngest(verifier: try TestPKI.verifier())
        var renewal = TestPKI.renewalInfo()
        renewal["originalTransactionId"] = "2000000999"
        #expect(throws: TransactionIngest.MismatchError.self) {
            try ingest.verify(signedTransaction: try Self.signedTransaction(), signedRenewalInfo: try TestPKI.sign(renewal), now: now)
        }
    }

    @Test func refusesTamperedDataWithApplesCode() throws {
        let ingest = TransactionIngest(verifier: try TestPKI.verifier())
        let parts = try Self.signedTransaction().split(separator: ".")
        let forged = try Self.signedTransaction("2000000002").split(separator: ".")
        let tampered = [parts[0], forged[1], parts[2]].joined(separator: ".")
        do {
            _ = try ingest.verify(signedTransaction: tampered, signedRenewalInfo: nil, now: now)
            Issue.record("a payload under another's signature was accepted")
        } catch let error as VerificationError {
            #expect(error.code == "VERIFICATION_FAILURE")
        }
    }

    @Test func theAppAccountTokenLinksTheUserAndStaysWithItsFirstOwner() throws {
        var ingest = TransactionIngest(verifier: try TestPKI.verifier())
        let store = MemoryStore()
        let first = try self.ingest(try Self.signedTransaction("2000000001", ["appAccountToken": Self.token]),
                                    userId: "user-1", with: &ingest, store: store)
        #expect(first.userId == "user-1")
        #expect(!first.appAccountTokenOfAnotherUser)

        // Without a userId, the token's owner is the user.
        let second = try self.ingest(try Self.signedTransaction("2000000002", ["appAccountToken": Self.token]),
                                     with: &ingest, store: store)
        #expect(second.userId == "user-1")
        #expect(try EntitlementRepository(store: store).originalTransactionIds(ofUser: "user-1") == ["2000000001", "2000000002"])

        // Another user naming the same token does not get it.
        let third = try self.ingest(try Self.signedTransaction("2000000003", ["appAccountToken": Self.token]),
                                    userId: "user-2", with: &ingest, store: store)
        #expect(third.appAccountTokenOfAnotherUser)
        #expect(try EntitlementRepository(store: store).user(ofAppAccountToken: Self.token) == "user-1")
    }

    @Test func activeIsTheUsersWholeStateWhileEntitlementsAreThisSubscriptionsOnly() throws {
        var ingest = TransactionIngest(verifier: try TestPKI.verifier())
        let store = MemoryStore()
        let current = try self.ingest(try Self.signedTransaction("2000000001"), userId: "user-1", with: &ingest, store: store)
        #expect(current.active)
        // A subscription that ended a day ago: not active itself, but the user still is.
        let lapsed = try self.ingest(try Self.signedTransaction("2000000002", expiresIn: -86_400_000),
                                     userId: "user-1", with: &ingest, store: store)
        #expect(lapsed.entitlements.map(\.active) == [false])
        #expect(lapsed.active, "user-1 has another active entitlement")

        // A fresh process (no memory of user-1) reads the user's records from the store.
        var fresh = TransactionIngest(verifier: try TestPKI.verifier())
        let again = try self.ingest(try Self.signedTransaction("2000000002", expiresIn: -86_400_000),
                                    userId: "user-1", with: &fresh, store: store)
        #expect(again.outcome == .duplicate)
        #expect(again.active)

        // Without a user, `active` is this subscription's.
        let anonymous = try self.ingest(try Self.signedTransaction("2000000003", expiresIn: -86_400_000), with: &fresh, store: store)
        #expect(!anonymous.active)
    }
}
