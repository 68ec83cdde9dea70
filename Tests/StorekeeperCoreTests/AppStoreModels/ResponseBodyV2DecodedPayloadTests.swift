import Foundation
import StorekeeperCore
import Testing

@Suite("ResponseBodyV2DecodedPayload")
struct ResponseBodyV2DecodedPayloadTests {
    @Test("decodes a DID_RENEW notification with data")
    func decodesDataNotification() throws {
        let payload = try AppStoreModelCoding.decode(
            ResponseBodyV2DecodedPayload.self, from: AppStoreModelSamples.didRenewNotification)

        #expect(payload.notificationType == .didRenew)
        #expect(payload.rawNotificationType == "DID_RENEW")
        #expect(payload.subtype == .billingRecovery)
        #expect(payload.rawSubtype == "BILLING_RECOVERY")
        #expect(payload.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(payload.version == "2.0")
        #expect(payload.signedDate == 1_698_148_900_000)
        #expect(payload.signedDateValue == Date(timeIntervalSince1970: 1_698_148_900))
        #expect(payload.summary == nil)
        #expect(payload.externalPurchaseToken == nil)
        #expect(payload.appData == nil)

        let data = try #require(payload.data)
        #expect(data.appAppleId == 41234)
        #expect(data.bundleId == "com.example")
        #expect(data.bundleVersion == "1.2.3")
        #expect(data.environment == .sandbox)
        #expect(data.rawEnvironment == "Sandbox")
        #expect(data.signedTransactionInfo == "eyJhbGciOiJFUzI1NiJ9.dHJhbnNhY3Rpb24.c2ln")
        #expect(data.signedRenewalInfo == "eyJhbGciOiJFUzI1NiJ9.cmVuZXdhbA.c2ln")
        #expect(data.status == .active)
        #expect(data.rawStatus == 1)
        #expect(data.consumptionRequestReason == nil)
    }

    @Test("decodes a CONSUMPTION_REQUEST notification and its reason")
    func decodesConsumptionRequest() throws {
        let payload = try AppStoreModelCoding.decode(
            ResponseBodyV2DecodedPayload.self, from: AppStoreModelSamples.consumptionRequestNotification)

        #expect(payload.notificationType == .consumptionRequest)
        #expect(payload.subtype == nil)
        #expect(payload.rawSubtype == nil)
        let data = try #require(payload.data)
        #expect(data.environment == .production)
        #expect(data.consumptionRequestReason == .unintendedPurchase)
        #expect(data.rawConsumptionRequestReason == "UNINTENDED_PURCHASE")
        #expect(data.status == nil)
        #expect(data.signedRenewalInfo == nil)
    }

    @Test("decodes a RENEWAL_EXTENSION summary")
    func decodesSummary() throws {
        let payload = try AppStoreModelCoding.decode(
            ResponseBodyV2DecodedPayload.self, from: AppStoreModelSamples.summaryNotification)

        #expect(payload.notificationType == .renewalExtension)
        #expect(payload.subtype == .summary)
        #expect(payload.data == nil)
        let summary = try #require(payload.summary)
        #expect(summary.requestIdentifier == "efb27071-45a4-4aca-9854-2a1e9146f265")
        #expect(summary.environment == .sandbox)
        #expect(summary.appAppleId == 41234)
        #expect(summary.bundleId == "com.example")
        #expect(summary.productId == "com.example.product")
        #expect(summary.storefrontCountryCodes == ["CAN", "USA", "MEX"])
        #expect(summary.failedCount == 5)
        #expect(summary.succeededCount == 2)
    }

    @Test("decodes an EXTERNAL_PURCHASE_TOKEN notification")
    func decodesExternalPurchaseToken() throws {
        let payload = try AppStoreModelCoding.decode(
            ResponseBodyV2DecodedPayload.self, from: AppStoreModelSamples.externalPurchaseTokenNotification)

        #expect(payload.notificationType == .externalPurchaseToken)
        #expect(payload.subtype == .created)
        let token = try #require(payload.externalPurchaseToken)
        #expect(token.externalPurchaseId == "b2158121-7af9-49d4-9561-1f588205523e")
        #expect(token.tokenCreationDate == 1_698_148_950_000)
        #expect(token.tokenCreationDateValue == Date(timeIntervalSince1970: 1_698_148_950))
        #expect(token.appAppleId == 55555)
        #expect(token.bundleId == "com.example")
        #expect(token.tokenExpirationDateValue == Date(timeIntervalSince1970: 1_698_235_350))
        #expect(token.tokenType == .acquisition)
        #expect(token.rawTokenType == "ACQUISITION")
    }

    @Test("decodes a RESCIND_CONSENT notification with appData")
    func decodesAppData() throws {
        let payload = try AppStoreModelCoding.decode(
            ResponseBodyV2DecodedPayload.self, from: AppStoreModelSamples.rescindConsentNotification)

        #expect(payload.notificationType == .rescindConsent)
        #expect(payload.data == nil)
        let appData = try #require(payload.appData)
        #expect(appData.appAppleId == 41234)
        #expect(appData.bundleId == "com.example")
        #expect(appData.environment == .production)
        #expect(appData.signedAppTransactionInfo == "eyJhbGciOiJFUzI1NiJ9.YXBwVHJhbnNhY3Rpb24.c2ln")
    }

    @Test("round-trips encode then decode unchanged", arguments: AppStoreNotificationSample.allCases)
    func roundTrips(sample: AppStoreNotificationSample) throws {
        let payload = try AppStoreModelCoding.decode(ResponseBodyV2DecodedPayload.self, from: sample.json)
        #expect(try AppStoreModelCoding.roundTrip(payload) == payload)
    }

    @Test("an unknown notification type and subtype keep their raw values")
    func unknownTypeAndSubtype() throws {
        let json = #"""
        {
          "notificationType": "SUBSCRIPTION_PAUSED",
          "subtype": "BY_CUSTOMER",
          "notificationUUID": "c5f6a0de-58c4-4d0a-b3a5-9a6c5e0d4f01",
          "version": "2.0",
          "signedDate": 1698148900000,
          "data": { "environment": "Staging", "status": 9, "consumptionRequestReason": "CHANGED_MIND" },
          "somethingNew": { "nested": true }
        }
        """#
        let payload = try AppStoreModelCoding.decode(ResponseBodyV2DecodedPayload.self, from: json)

        #expect(payload.notificationType == nil)
        #expect(payload.rawNotificationType == "SUBSCRIPTION_PAUSED")
        #expect(payload.subtype == nil)
        #expect(payload.rawSubtype == "BY_CUSTOMER")
        let data = try #require(payload.data)
        #expect(data.environment == nil)
        #expect(data.rawEnvironment == "Staging")
        #expect(data.status == nil)
        #expect(data.rawStatus == 9)
        #expect(data.consumptionRequestReason == nil)
        #expect(data.rawConsumptionRequestReason == "CHANGED_MIND")

        // The unknown values go back on the wire under Apple's keys.
        let encoded = try AppStoreModelCoding.encodedObject(payload)
        #expect(encoded["notificationType"] as? String == "SUBSCRIPTION_PAUSED")
        #expect(encoded["subtype"] as? String == "BY_CUSTOMER")
        #expect(encoded["rawNotificationType"] == nil)
        let encodedData = try #require(encoded["data"] as? [String: Any])
        #expect((encodedData["status"] as? NSNumber)?.int64Value == 9)
        #expect(encodedData["environment"] as? String == "Staging")
    }

    @Test("an empty object decodes with every field nil, and encodes to an empty object")
    func emptyObject() throws {
        let payload = try AppStoreModelCoding.decode(ResponseBodyV2DecodedPayload.self, from: "{}")
        #expect(payload == ResponseBodyV2DecodedPayload())
        #expect(payload.notificationType == nil)
        #expect(payload.signedDateValue == nil)
        #expect(try AppStoreModelCoding.encodedObject(payload).isEmpty)
    }

    @Test("typed setters write the wire value")
    func typedSetters() throws {
        var payload = ResponseBodyV2DecodedPayload(notificationUUID: "u", version: "2.0")
        payload.notificationType = .subscribed
        payload.subtype = .initialBuy
        payload.signedDateValue = Date(timeIntervalSince1970: 1_700_000_000.5)
        payload.data = NotificationData(bundleId: "com.example")
        payload.data?.environment = .xcode
        payload.data?.status = .billingGracePeriod

        #expect(payload.rawNotificationType == "SUBSCRIBED")
        #expect(payload.rawSubtype == "INITIAL_BUY")
        #expect(payload.signedDate == 1_700_000_000_500)
        #expect(payload.data?.rawEnvironment == "Xcode")
        #expect(payload.data?.rawStatus == 4)

        let encoded = try AppStoreModelCoding.encodedObject(payload)
        #expect(encoded["notificationType"] as? String == "SUBSCRIBED")
        #expect((encoded["signedDate"] as? NSNumber)?.int64Value == 1_700_000_000_500)
        #expect(try AppStoreModelCoding.roundTrip(payload) == payload)

        payload.subtype = nil
        #expect(payload.rawSubtype == nil)
    }
}
