import Foundation
import StorekeeperCore
import Testing

@Suite("JWSTransactionDecodedPayload")
struct JWSTransactionDecodedPayloadTests {
    @Test("decodes every documented field and ignores unknown keys")
    func decodesAllFields() throws {
        let transaction = try AppStoreModelCoding.decode(
            JWSTransactionDecodedPayload.self, from: AppStoreModelSamples.transaction)

        #expect(transaction.originalTransactionId == "2000000450000001")
        #expect(transaction.transactionId == "2000000450000042")
        #expect(transaction.previousOriginalTransactionId == "2000000100000007")
        #expect(transaction.webOrderLineItemId == "2000000030000011")
        #expect(transaction.bundleId == "com.example")
        #expect(transaction.productId == "com.example.pro.monthly")
        #expect(transaction.subscriptionGroupIdentifier == "21345678")
        #expect(transaction.purchaseDate == 1_698_148_900_000)
        #expect(transaction.originalPurchaseDate == 1_698_148_800_000)
        #expect(transaction.expiresDate == 1_700_827_300_000)
        #expect(transaction.quantity == 1)
        #expect(transaction.type == .autoRenewableSubscription)
        #expect(transaction.rawType == "Auto-Renewable Subscription")
        #expect(transaction.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(transaction.appAccountTokenValue == UUID(uuidString: "7E3FB20B-4CDB-47CC-936D-99D65F608138"))
        #expect(transaction.inAppOwnershipType == .purchased)
        #expect(transaction.signedDate == 1_698_148_900_123)
        #expect(transaction.revocationReason == .refundedDueToIssue)
        #expect(transaction.rawRevocationReason == 1)
        #expect(transaction.revocationDate == 1_698_235_300_000)
        #expect(transaction.revocationType == .refundProrated)
        #expect(transaction.revocationPercentage == 50_000)
        #expect(transaction.isUpgraded == false)
        #expect(transaction.offerType == .introductoryOffer)
        #expect(transaction.rawOfferType == 1)
        #expect(transaction.offerIdentifier == "intro.week.free")
        #expect(transaction.environment == .sandbox)
        #expect(transaction.storefront == "USA")
        #expect(transaction.storefrontId == "143441")
        #expect(transaction.transactionReason == .purchase)
        #expect(transaction.currency == "USD")
        #expect(transaction.price == 9990)
        #expect(transaction.offerDiscountType == .freeTrial)
        #expect(transaction.appTransactionId == "704235890155464327")
        #expect(transaction.offerPeriod == "P1W")
        #expect(transaction.billingPlanType == .monthly)
        #expect(transaction.rawBillingPlanType == "MONTHLY")

        let commitment = try #require(transaction.commitmentInfo)
        #expect(commitment.billingPeriodNumber == 3)
        #expect(commitment.commitmentExpiresDate == 1_729_684_900_000)
        #expect(commitment.commitmentExpiresDateValue == Date(timeIntervalSince1970: 1_729_684_900))
        #expect(commitment.commitmentPrice == 119_880)
        #expect(commitment.totalBillingPeriods == 12)
    }

    @Test("converts Apple's millisecond dates to Date exactly")
    func convertsDates() throws {
        let transaction = try AppStoreModelCoding.decode(
            JWSTransactionDecodedPayload.self, from: AppStoreModelSamples.transaction)

        #expect(transaction.signedDateValue == Date(timeIntervalSince1970: 1_698_148_900.123))
        #expect(transaction.purchaseDateValue == Date(timeIntervalSince1970: 1_698_148_900))
        #expect(transaction.originalPurchaseDateValue == Date(timeIntervalSince1970: 1_698_148_800))
        #expect(transaction.expiresDateValue == Date(timeIntervalSince1970: 1_700_827_300))
        #expect(transaction.revocationDateValue == Date(timeIntervalSince1970: 1_698_235_300))
        // 2023-10-24T12:01:40.123Z, written independently of the conversion under test.
        let components = DateComponents(
            calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "UTC"),
            year: 2023, month: 10, day: 24, hour: 12, minute: 1, second: 40, nanosecond: 123_000_000)
        let expected = try #require(components.date)
        let signed = try #require(transaction.signedDateValue)
        #expect(abs(signed.timeIntervalSince(expected)) < 0.000_5)
    }

    @Test("date setters write milliseconds, and an unrepresentable date writes nil instead of trapping")
    func dateSetters() {
        var transaction = JWSTransactionDecodedPayload()
        transaction.expiresDateValue = Date(timeIntervalSince1970: 1_700_000_000.987)
        #expect(transaction.expiresDate == 1_700_000_000_987)
        transaction.expiresDateValue = Date(timeIntervalSince1970: -1.5)
        #expect(transaction.expiresDate == -1_500)
        transaction.expiresDateValue = Date(timeIntervalSince1970: 1e300)
        #expect(transaction.expiresDate == nil)
        transaction.purchaseDate = 1_700_000_000_987
        #expect(transaction.purchaseDateValue.map(AppStoreDateProbe.milliseconds) == 1_700_000_000_987)
    }

    @Test("round-trips encode then decode unchanged")
    func roundTrips() throws {
        let transaction = try AppStoreModelCoding.decode(
            JWSTransactionDecodedPayload.self, from: AppStoreModelSamples.transaction)
        #expect(try AppStoreModelCoding.roundTrip(transaction) == transaction)

        let encoded = try AppStoreModelCoding.encodedObject(transaction)
        #expect(encoded["type"] as? String == "Auto-Renewable Subscription")
        #expect((encoded["offerType"] as? NSNumber)?.int32Value == 1)
        #expect((encoded["price"] as? NSNumber)?.int64Value == 9990)
        #expect(encoded["rawType"] == nil)
        // Keys Storekeeper does not model are not carried through.
        #expect(encoded["someFieldAppleAddsLater"] == nil)
    }

    @Test("unknown type, environment, offer and revocation values keep their raw values")
    func unknownValues() throws {
        let json = #"""
        {
          "transactionId": "1",
          "type": "Subscription Bundle",
          "inAppOwnershipType": "GIFTED",
          "environment": "Staging",
          "offerType": 7,
          "offerDiscountType": "PAY_LATER",
          "revocationReason": 3,
          "revocationType": "ASSIGNMENT_REVOKE",
          "transactionReason": "MIGRATION",
          "billingPlanType": "QUARTERLY"
        }
        """#
        let transaction = try AppStoreModelCoding.decode(JWSTransactionDecodedPayload.self, from: json)

        #expect(transaction.type == nil)
        #expect(transaction.rawType == "Subscription Bundle")
        #expect(transaction.inAppOwnershipType == nil)
        #expect(transaction.rawInAppOwnershipType == "GIFTED")
        #expect(transaction.environment == nil)
        #expect(transaction.rawEnvironment == "Staging")
        #expect(transaction.offerType == nil)
        #expect(transaction.rawOfferType == 7)
        #expect(transaction.offerDiscountType == nil)
        #expect(transaction.rawOfferDiscountType == "PAY_LATER")
        #expect(transaction.revocationReason == nil)
        #expect(transaction.rawRevocationReason == 3)
        #expect(transaction.revocationType == nil)
        #expect(transaction.rawRevocationType == "ASSIGNMENT_REVOKE")
        #expect(transaction.transactionReason == nil)
        #expect(transaction.rawTransactionReason == "MIGRATION")
        #expect(transaction.billingPlanType == nil)
        #expect(transaction.rawBillingPlanType == "QUARTERLY")
        #expect(try AppStoreModelCoding.roundTrip(transaction) == transaction)
        #expect(try AppStoreModelCoding.encodedObject(transaction)["type"] as? String == "Subscription Bundle")
    }

    @Test("a malformed appAccountToken is kept as a string and has no UUID value")
    func malformedAppAccountToken() throws {
        let transaction = try AppStoreModelCoding.decode(
            JWSTransactionDecodedPayload.self, from: #"{"appAccountToken": "not-a-uuid"}"#)
        #expect(transaction.appAccountToken == "not-a-uuid")
        #expect(transaction.appAccountTokenValue == nil)
    }

    @Test("a payload built with typed setters encodes Apple's wire values")
    func builtPayload() throws {
        var transaction = JWSTransactionDecodedPayload(
            transactionId: "t1", originalTransactionId: "o1", bundleId: "com.example",
            productId: "com.example.lifetime", quantity: 1, price: 29_990)
        transaction.type = .nonConsumable
        transaction.environment = .localTesting
        transaction.inAppOwnershipType = .familyShared
        transaction.revocationType = .familyRevoke
        transaction.revocationReason = .refundedForOtherReason
        transaction.transactionReason = .purchase
        transaction.offerDiscountType = .oneTime
        transaction.offerType = .offerCode

        let encoded = try AppStoreModelCoding.encodedObject(transaction)
        #expect(encoded["type"] as? String == "Non-Consumable")
        #expect(encoded["environment"] as? String == "LocalTesting")
        #expect(encoded["inAppOwnershipType"] as? String == "FAMILY_SHARED")
        #expect(encoded["revocationType"] as? String == "FAMILY_REVOKE")
        #expect((encoded["revocationReason"] as? NSNumber)?.int32Value == 0)
        #expect(encoded["offerDiscountType"] as? String == "ONE_TIME")
        #expect((encoded["offerType"] as? NSNumber)?.int32Value == 3)
        #expect(encoded["expiresDate"] == nil)
        #expect(try AppStoreModelCoding.roundTrip(transaction) == transaction)
    }
}

/// Reads a Date back as whole milliseconds, independently of the model's own conversion.
enum AppStoreDateProbe {
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
