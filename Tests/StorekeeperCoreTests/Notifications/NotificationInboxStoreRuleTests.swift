import Foundation
import StorekeeperCore
import Testing

/// The webhook's rule about the store: verification may read the chain cache (and so open
/// the store), and takes a store failure there for a cache miss; nothing is written for a
/// notification before it has verified.
@Suite("NotificationInbox: the store during and after verification")
struct NotificationInboxStoreRuleTests {
    private func inbox(store: any KeyValueStore) throws -> NotificationInbox {
        let configuration = try TestPKI.verifier().configuration
        return NotificationInbox(verifier: SignedDataVerifier(configuration: configuration, chainStore: store), store: store)
    }

    @Test func aStoreThatWillNotOpenStillLetsAValidNotificationVerifyAndThenFailsToStoreIt() throws {
        var opens = 0
        let store = SelfOpeningStore { () throws(StoreError) in
            opens += 1
            throw StoreError(.unavailable, "connection refused")
        }
        let payload = try TestPKI.sign(TestPKI.notification())
        let error = try #require(throws: StoreError.self) {
            try inbox(store: store).receive(signedPayload: payload, now: TestPKI.fixedTime)
        }
        // A StoreError, not a VerificationError: the chain-cache read that could not open the
        // store was a miss, the notification verified, and only storing it failed (the
        // runtime answers this 503 / exit 75, so Apple delivers it again).
        #expect(error.isRetryable)
        #expect(opens >= 2, "the chain cache was read before the notification was stored")
    }

    @Test func aNotificationWhoseChainIsNotTrustedWritesNothing() throws {
        let store = MemoryStore()
        let payload = try TestPKI.sign(TestPKI.notification(), key: "leaf-other-root",
                                       chain: ["leaf-other-root", "other-intermediate", "other-root"])
        #expect(throws: VerificationError.self) {
            try inbox(store: store).receive(signedPayload: payload, now: TestPKI.fixedTime)
        }
        #expect(store.keys.isEmpty, "written: \(store.keys)")
    }

    @Test func aNotificationWithABadSignatureStoresNoRecordAndQueuesNothing() throws {
        let store = MemoryStore()
        // Apple's chain, someone else's signature: the chain may be remembered as proven,
        // the notification is neither stored nor queued (this store refuses queue writes, so
        // an attempt would surface as a StoreError instead of the VerificationError).
        let payload = try TestPKI.sign(TestPKI.notification(), key: "leaf-expired")
        #expect(throws: VerificationError.self) {
            try inbox(store: store).receive(signedPayload: payload, now: TestPKI.fixedTime)
        }
        #expect(!store.keys.contains { $0.contains("notification") }, "written: \(store.keys)")
    }
}
