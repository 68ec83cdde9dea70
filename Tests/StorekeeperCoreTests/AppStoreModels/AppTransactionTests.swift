import Foundation
import StorekeeperCore
import Testing

@Suite("AppTransaction")
struct AppTransactionTests {
    @Test("decodes every documented field")
    func decodesAllFields() throws {
        let app = try AppStoreModelCoding.decode(AppTransaction.self, from: AppStoreModelSamples.appTransaction)

        #expect(app.receiptType == .production)
        #expect(app.rawReceiptType == "Production")
        #expect(app.appAppleId == 531_412)
        #expect(app.bundleId == "com.example")
        #expect(app.applicationVersion == "7.1.2")
        #expect(app.versionExternalIdentifier == 821_654)
        #expect(app.receiptCreationDate == 1_698_148_900_000)
        #expect(app.receiptCreationDateValue == Date(timeIntervalSince1970: 1_698_148_900))
        #expect(app.originalPurchaseDateValue == Date(timeIntervalSince1970: 1_598_148_800))
        #expect(app.originalApplicationVersion == "1.1.2")
        #expect(app.deviceVerification == "ZmFrZS1kZXZpY2UtdmVyaWZpY2F0aW9uLXNoYTM4NA==")
        #expect(app.deviceVerificationNonce == "48ccfa42-7431-4f22-9908-7e88983e105a")
        #expect(app.deviceVerificationNonceValue == UUID(uuidString: "48ccfa42-7431-4f22-9908-7e88983e105a"))
        #expect(app.preorderDateValue == Date(timeIntervalSince1970: 1_598_048_800))
        #expect(app.appTransactionId == "704235890155464327")
        #expect(app.originalPlatform == .iOS)
        #expect(app.rawOriginalPlatform == "iOS")
    }

    @Test("round-trips encode then decode unchanged, under Apple's keys")
    func roundTrips() throws {
        let app = try AppStoreModelCoding.decode(AppTransaction.self, from: AppStoreModelSamples.appTransaction)
        #expect(try AppStoreModelCoding.roundTrip(app) == app)
        let encoded = try AppStoreModelCoding.encodedObject(app)
        #expect(encoded["receiptType"] as? String == "Production")
        #expect(encoded["originalPlatform"] as? String == "iOS")
        #expect(encoded["rawReceiptType"] == nil)
    }

    @Test("an unknown receipt type and platform keep their raw values")
    func unknownValues() throws {
        let app = try AppStoreModelCoding.decode(
            AppTransaction.self, from: #"{"receiptType": "Staging", "originalPlatform": "watchOS"}"#)
        #expect(app.receiptType == nil)
        #expect(app.rawReceiptType == "Staging")
        #expect(app.originalPlatform == nil)
        #expect(app.rawOriginalPlatform == "watchOS")
        #expect(try AppStoreModelCoding.roundTrip(app) == app)
    }
}
