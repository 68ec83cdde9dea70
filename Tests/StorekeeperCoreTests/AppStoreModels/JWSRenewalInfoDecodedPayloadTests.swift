import Foundation
import StorekeeperCore
import Testing

@Suite("JWSRenewalInfoDecodedPayload")
struct JWSRenewalInfoDecodedPayloadTests {
    @Test("decodes every documented field")
    func decodesAllFields() throws {
        let renewal = try AppStoreModelCoding.decode(
            JWSRenewalInfoDecodedPayload.self, from: AppStoreModelSamples.renewalInfo)

        #expect(renewal.expirationIntent == .customerCancelled)
        #expect(renewal.rawExpirationIntent == 1)
        #expect(renewal.originalTransactionId == "2000000450000001")
        #expect(renewal.autoRenewProductId == "com.example.pro.yearly")
        #expect(renewal.productId == "com.example.pro.monthly")
        #expect(renewal.autoRenewStatus == .on)
        #expect(renewal.rawAutoRenewStatus == 1)
        #expect(renewal.isInBillingRetryPeriod == true)
        #expect(renewal.priceIncreaseStatus == .customerHasNotResponded)
        #expect(renewal.gracePeriodExpiresDate == 1_700_913_700_000)
        #expect(renewal.offerType == .winBackOffer)
        #expect(renewal.offerIdentifier == "winback.50")
        #expect(renewal.signedDate == 1_698_148_900_000)
        #expect(renewal.environment == .production)
        #expect(renewal.recentSubscriptionStartDate == 1_690_000_000_000)
        #expect(renewal.renewalDate == 1_700_827_300_000)
        #expect(renewal.currency == "EUR")
        #expect(renewal.renewalPrice == 4990)
        #expect(renewal.offerDiscountType == .payAsYouGo)
        #expect(renewal.eligibleWinBackOfferIds == ["winback.50", "winback.free.month"])
        #expect(renewal.appAccountTokenValue == UUID(uuidString: "7e3fb20b-4cdb-47cc-936d-99d65f608138"))
        #expect(renewal.appTransactionId == "704235890155464327")
        #expect(renewal.offerPeriod == "P3M")
        #expect(renewal.renewalBillingPlanType == .billedUpfront)

        let commitment = try #require(renewal.commitmentInfo)
        #expect(commitment.commitmentAutoRenewProductId == "com.example.pro.commit12")
        #expect(commitment.commitmentAutoRenewStatus == .on)
        #expect(commitment.commitmentRenewalBillingPlanType == .monthly)
        #expect(commitment.commitmentRenewalDateValue == Date(timeIntervalSince1970: 1_729_684_900))
        #expect(commitment.commitmentRenewalPrice == 119_880)
    }

    @Test("converts Apple's millisecond dates to Date")
    func convertsDates() throws {
        let renewal = try AppStoreModelCoding.decode(
            JWSRenewalInfoDecodedPayload.self, from: AppStoreModelSamples.renewalInfo)
        #expect(renewal.gracePeriodExpiresDateValue == Date(timeIntervalSince1970: 1_700_913_700))
        #expect(renewal.signedDateValue == Date(timeIntervalSince1970: 1_698_148_900))
        #expect(renewal.recentSubscriptionStartDateValue == Date(timeIntervalSince1970: 1_690_000_000))
        #expect(renewal.renewalDateValue == Date(timeIntervalSince1970: 1_700_827_300))
    }

    @Test("round-trips encode then decode unchanged")
    func roundTrips() throws {
        let renewal = try AppStoreModelCoding.decode(
            JWSRenewalInfoDecodedPayload.self, from: AppStoreModelSamples.renewalInfo)
        #expect(try AppStoreModelCoding.roundTrip(renewal) == renewal)
        let encoded = try AppStoreModelCoding.encodedObject(renewal)
        #expect((encoded["autoRenewStatus"] as? NSNumber)?.int32Value == 1)
        #expect(encoded["renewalBillingPlanType"] as? String == "BILLED_UPFRONT")
        let commitment = try #require(encoded["commitmentInfo"] as? [String: Any])
        #expect(commitment["commitmentRenewalBillingPlanType"] as? String == "MONTHLY")
    }

    @Test("unknown integer and string values keep their raw values")
    func unknownValues() throws {
        let json = #"""
        {
          "expirationIntent": 6,
          "autoRenewStatus": 2,
          "priceIncreaseStatus": 3,
          "offerType": 9,
          "environment": "Staging",
          "commitmentInfo": { "commitmentAutoRenewStatus": 5, "commitmentRenewalBillingPlanType": "WEEKLY" }
        }
        """#
        let renewal = try AppStoreModelCoding.decode(JWSRenewalInfoDecodedPayload.self, from: json)
        #expect(renewal.expirationIntent == nil)
        #expect(renewal.rawExpirationIntent == 6)
        #expect(renewal.autoRenewStatus == nil)
        #expect(renewal.rawAutoRenewStatus == 2)
        #expect(renewal.priceIncreaseStatus == nil)
        #expect(renewal.rawPriceIncreaseStatus == 3)
        #expect(renewal.offerType == nil)
        #expect(renewal.rawOfferType == 9)
        #expect(renewal.environment == nil)
        #expect(renewal.commitmentInfo?.commitmentAutoRenewStatus == nil)
        #expect(renewal.commitmentInfo?.rawCommitmentAutoRenewStatus == 5)
        #expect(renewal.commitmentInfo?.rawCommitmentRenewalBillingPlanType == "WEEKLY")
        #expect(try AppStoreModelCoding.roundTrip(renewal) == renewal)
    }

    @Test("typed setters write the wire value")
    func typedSetters() {
        var renewal = JWSRenewalInfoDecodedPayload(originalTransactionId: "o1")
        renewal.autoRenewStatus = .off
        renewal.expirationIntent = .billingError
        renewal.priceIncreaseStatus = .customerConsentedOrWasNotifiedWithoutNeedingConsent
        renewal.renewalDateValue = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(renewal.rawAutoRenewStatus == 0)
        #expect(renewal.rawExpirationIntent == 2)
        #expect(renewal.rawPriceIncreaseStatus == 1)
        #expect(renewal.renewalDate == 1_700_000_000_000)
    }
}
