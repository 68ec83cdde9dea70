import FoundationEssentials
@testable import StorekeeperCore
import Testing

/// One entry point per kind of signed data, each answering Apple's model read from the
/// verified bytes, and each refusing a payload of another kind.
@Suite("SignedDataVerifier: typed entry points")
struct TypedEntryPointTests {
    let now = TestPKI.fixedTime

    private func expectFormatRefusal(sourceLocation: SourceLocation = #_sourceLocation, _ verify: () throws -> Void) {
        do {
            try verify()
            Issue.record("a payload of another kind verified", sourceLocation: sourceLocation)
        } catch let error as VerificationError {
            #expect(error.kind == .invalidJWTFormat, "reason: \(error.reason)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected VerificationError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func eachEntryPointAnswersItsModel() throws {
        let verifier = try TestPKI.verifier()
        let transaction = try verifier.verifyTransaction(TestPKI.sign(TestPKI.transaction()), now: now)
        #expect(transaction.payload.transactionId == "2000000001")
        #expect(transaction.payload.type == .autoRenewableSubscription)
        #expect(transaction.environment == .sandbox)
        let renewal = try verifier.verifyRenewalInfo(TestPKI.sign(TestPKI.renewalInfo()), now: now)
        #expect(renewal.payload.autoRenewStatus == .on)
        #expect(renewal.signed.type == .renewalInfo)
    }

    @Test func eachEntryPointRefusesTheWrongKind() throws {
        let verifier = try TestPKI.verifier()
        let transaction = try TestPKI.sign(TestPKI.transaction())
        let renewal = try TestPKI.sign(TestPKI.renewalInfo())
        let notification = try TestPKI.sign(TestPKI.notification())
        expectFormatRefusal { _ = try verifier.verifyTransaction(renewal, now: now) }
        expectFormatRefusal { _ = try verifier.verifyTransaction(notification, now: now) }
        expectFormatRefusal { _ = try verifier.verifyRenewalInfo(transaction, now: now) }
        expectFormatRefusal { _ = try verifier.verifyAppTransaction(transaction, now: now) }
        expectFormatRefusal { _ = try verifier.verifyNotification(transaction, now: now) }
        expectFormatRefusal { _ = try verifier.verifyNotification(renewal, now: now) }
    }

    @Test func aNotificationAnswersOneTypedValueWithItsNestedModels() throws {
        let verified = try TestPKI.verifier().verifyNotification(TestPKI.sign(TestPKI.notification()), now: now)
        #expect(verified.notificationUUID == "8c9f1d2e-0000-4000-8000-000000000001")
        #expect(verified.payload.notificationType == .subscribed)
        #expect(verified.payload.subtype == .initialBuy)
        #expect(verified.signedDate == TestPKI.fixedTimeMilliseconds)
        #expect(verified.environment == .sandbox)
        #expect(verified.transaction?.productId == "com.example.pro.monthly")
        #expect(verified.renewalInfo?.autoRenewProductId == "com.example.pro.monthly")
        #expect(verified.appTransaction == nil)
        // The models are read from exactly the verified bytes that are stored.
        let stored = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(try #require(verified.signed.transactionInfo)))
        #expect(stored == verified.transaction)
    }

    /// The webhook's way: the nested JWS verified all the same, their JSON kept, no models.
    @Test func aNotificationCanBeReadAsItsEnvelopeAlone() throws {
        let verifier = try TestPKI.verifier()
        let jws = try TestPKI.sign(TestPKI.notification())
        let full = try verifier.verifyNotification(jws, now: now)
        let envelope = try verifier.verifyNotification(jws, now: now, models: .envelope)
        #expect(envelope.notificationUUID == full.notificationUUID && envelope.payload.subtype == .initialBuy)
        #expect(envelope.transaction == nil && envelope.renewalInfo == nil && envelope.appTransaction == nil)
        #expect(full.transaction != nil && full.renewalInfo != nil)
        #expect(envelope.signed.transactionInfo == full.signed.transactionInfo)
        #expect(envelope.signed.renewalInfo == full.signed.renewalInfo)
        // A nested JWS that does not chain to the configured root still refuses the whole
        // notification.
        let foreign = try TestPKI.sign(TestPKI.transaction(), key: "leaf-other-root",
                                       chain: ["leaf-other-root", "other-intermediate", "other-root"])
        let payload = try TestPKI.notification(transactionJWS: foreign)
        let error = try #require(throws: VerificationError.self) {
            _ = try verifier.verifyNotification(try TestPKI.sign(payload), now: now, models: .envelope)
        }
        #expect(error.kind == .invalidCertificate)
    }

    @Test func aNotificationWithoutItsUUIDIsRefused() throws {
        var payload = try TestPKI.notification()
        payload["notificationUUID"] = nil
        let jws = try TestPKI.sign(payload)
        // The untyped answer still verifies it (verify-signed-data passes it on) ...
        #expect(try TestPKI.verifier().verify(jws, now: now).type == .notification)
        // ... but it cannot be deduplicated, so the typed one refuses it.
        expectFormatRefusal { _ = try TestPKI.verifier().verifyNotification(jws, now: now) }
    }

    /// A notification as receive-notification stored it before this redesign (same keys):
    /// the worker still reads it, into Apple's models.
    @Test func aStoredNotificationOfTheOldShapeStillReads() throws {
        let stored = #"""
        {"notificationUUID":"u-1","notificationType":"DID_RENEW","signedDate":1700000000000,"environment":"Sandbox",\#
        "receivedAt":1700000000500,"via":"recovery","payload":{"notificationType":"DID_RENEW","notificationUUID":"u-1",\#
        "version":"2.0","signedDate":1700000000000,"data":{"bundleId":"com.example","environment":"Sandbox",\#
        "signedTransactionInfo":"x.y.z","status":1}},"transactionInfo":{"transactionId":"t-2","originalTransactionId":"t-1",\#
        "type":"Auto-Renewable Subscription","signedDate":1700000000000,"expiresDate":1702592000000,"purchaseDate":1700000000000}}
        """#
        let notification = try JSONDecoder().decode(StoredNotification.self, from: Data(stored.utf8))
        #expect(notification.notificationUUID == "u-1")
        #expect(notification.via == .recovery)
        #expect(notification.payload.notificationType == .didRenew)
        #expect(notification.payload.data?.status == .active)
        let event = notification.event
        #expect(event.type == "DID_RENEW")
        #expect(event.originalTransactionId == "t-1")
        #expect(event.signedDate == 1_700_000_000_000)
    }
}
