import Foundation
import StorekeeperCore
import Testing

/// Realistic decoded payloads, written from Apple's documented fields. They live in Swift
/// rather than .json files so the test target needs no resource declaration.
enum AppStoreModelSamples {
    static let didRenewNotification = #"""
    {
      "notificationType": "DID_RENEW",
      "subtype": "BILLING_RECOVERY",
      "notificationUUID": "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
      "version": "2.0",
      "signedDate": 1698148900000,
      "data": {
        "appAppleId": 41234,
        "bundleId": "com.example",
        "bundleVersion": "1.2.3",
        "environment": "Sandbox",
        "signedTransactionInfo": "eyJhbGciOiJFUzI1NiJ9.dHJhbnNhY3Rpb24.c2ln",
        "signedRenewalInfo": "eyJhbGciOiJFUzI1NiJ9.cmVuZXdhbA.c2ln",
        "status": 1
      }
    }
    """#

    static let consumptionRequestNotification = #"""
    {
      "notificationType": "CONSUMPTION_REQUEST",
      "notificationUUID": "4f0f2bd6-7a1d-4a47-bd0b-1c3f2b1c6e10",
      "version": "2.0",
      "signedDate": 1698148900000,
      "data": {
        "appAppleId": 41234,
        "bundleId": "com.example",
        "bundleVersion": "1.2.3",
        "environment": "Production",
        "signedTransactionInfo": "eyJhbGciOiJFUzI1NiJ9.dHJhbnNhY3Rpb24.c2ln",
        "consumptionRequestReason": "UNINTENDED_PURCHASE"
      }
    }
    """#

    static let summaryNotification = #"""
    {
      "notificationType": "RENEWAL_EXTENSION",
      "subtype": "SUMMARY",
      "notificationUUID": "9f6a1c0e-8a55-4c6c-9e55-3bd0bd3f5a2b",
      "version": "2.0",
      "signedDate": 1698148900000,
      "summary": {
        "requestIdentifier": "efb27071-45a4-4aca-9854-2a1e9146f265",
        "environment": "Sandbox",
        "appAppleId": 41234,
        "bundleId": "com.example",
        "productId": "com.example.product",
        "storefrontCountryCodes": ["CAN", "USA", "MEX"],
        "failedCount": 5,
        "succeededCount": 2
      }
    }
    """#

    static let externalPurchaseTokenNotification = #"""
    {
      "notificationType": "EXTERNAL_PURCHASE_TOKEN",
      "subtype": "CREATED",
      "notificationUUID": "b3a4bd2f-3f3e-4e1c-a5b9-6e0a7f2e8d11",
      "version": "2.0",
      "signedDate": 1698148900000,
      "externalPurchaseToken": {
        "externalPurchaseId": "b2158121-7af9-49d4-9561-1f588205523e",
        "tokenCreationDate": 1698148950000,
        "appAppleId": 55555,
        "bundleId": "com.example",
        "tokenExpirationDate": 1698235350000,
        "tokenType": "ACQUISITION"
      }
    }
    """#

    static let rescindConsentNotification = #"""
    {
      "notificationType": "RESCIND_CONSENT",
      "notificationUUID": "6a3c0b52-0f0b-4d58-9d6a-0b9f3d1e2c44",
      "version": "2.0",
      "signedDate": 1698148900000,
      "appData": {
        "appAppleId": 41234,
        "bundleId": "com.example",
        "environment": "Production",
        "signedAppTransactionInfo": "eyJhbGciOiJFUzI1NiJ9.YXBwVHJhbnNhY3Rpb24.c2ln"
      }
    }
    """#

    /// Every documented field, plus two keys Storekeeper does not model (ignored on decode).
    static let transaction = #"""
    {
      "originalTransactionId": "2000000450000001",
      "transactionId": "2000000450000042",
      "previousOriginalTransactionId": "2000000100000007",
      "webOrderLineItemId": "2000000030000011",
      "bundleId": "com.example",
      "productId": "com.example.pro.monthly",
      "subscriptionGroupIdentifier": "21345678",
      "purchaseDate": 1698148900000,
      "originalPurchaseDate": 1698148800000,
      "expiresDate": 1700827300000,
      "quantity": 1,
      "type": "Auto-Renewable Subscription",
      "appAccountToken": "7e3fb20b-4cdb-47cc-936d-99d65f608138",
      "inAppOwnershipType": "PURCHASED",
      "signedDate": 1698148900123,
      "revocationReason": 1,
      "revocationDate": 1698235300000,
      "revocationType": "REFUND_PRORATED",
      "revocationPercentage": 50000,
      "isUpgraded": false,
      "offerType": 1,
      "offerIdentifier": "intro.week.free",
      "environment": "Sandbox",
      "storefront": "USA",
      "storefrontId": "143441",
      "transactionReason": "PURCHASE",
      "currency": "USD",
      "price": 9990,
      "offerDiscountType": "FREE_TRIAL",
      "appTransactionId": "704235890155464327",
      "offerPeriod": "P1W",
      "billingPlanType": "MONTHLY",
      "commitmentInfo": {
        "billingPeriodNumber": 3,
        "commitmentExpiresDate": 1729684900000,
        "commitmentPrice": 119880,
        "totalBillingPeriods": 12
      },
      "advancedCommerceInfo": { "requestReferenceId": "not-modelled" },
      "someFieldAppleAddsLater": [1, 2, 3]
    }
    """#

    static let renewalInfo = #"""
    {
      "expirationIntent": 1,
      "originalTransactionId": "2000000450000001",
      "autoRenewProductId": "com.example.pro.yearly",
      "productId": "com.example.pro.monthly",
      "autoRenewStatus": 1,
      "isInBillingRetryPeriod": true,
      "priceIncreaseStatus": 0,
      "gracePeriodExpiresDate": 1700913700000,
      "offerType": 4,
      "offerIdentifier": "winback.50",
      "signedDate": 1698148900000,
      "environment": "Production",
      "recentSubscriptionStartDate": 1690000000000,
      "renewalDate": 1700827300000,
      "currency": "EUR",
      "renewalPrice": 4990,
      "offerDiscountType": "PAY_AS_YOU_GO",
      "eligibleWinBackOfferIds": ["winback.50", "winback.free.month"],
      "appAccountToken": "7e3fb20b-4cdb-47cc-936d-99d65f608138",
      "appTransactionId": "704235890155464327",
      "offerPeriod": "P3M",
      "renewalBillingPlanType": "BILLED_UPFRONT",
      "commitmentInfo": {
        "commitmentAutoRenewProductId": "com.example.pro.commit12",
        "commitmentAutoRenewStatus": 1,
        "commitmentRenewalBillingPlanType": "MONTHLY",
        "commitmentRenewalDate": 1729684900000,
        "commitmentRenewalPrice": 119880
      }
    }
    """#

    static let appTransaction = #"""
    {
      "receiptType": "Production",
      "appAppleId": 531412,
      "bundleId": "com.example",
      "applicationVersion": "7.1.2",
      "versionExternalIdentifier": 821654,
      "receiptCreationDate": 1698148900000,
      "originalPurchaseDate": 1598148800000,
      "originalApplicationVersion": "1.1.2",
      "deviceVerification": "ZmFrZS1kZXZpY2UtdmVyaWZpY2F0aW9uLXNoYTM4NA==",
      "deviceVerificationNonce": "48ccfa42-7431-4f22-9908-7e88983e105a",
      "preorderDate": 1598048800000,
      "appTransactionId": "704235890155464327",
      "originalPlatform": "iOS"
    }
    """#
}

/// The notification samples by name, so parameterized tests report a name, not the JSON.
enum AppStoreNotificationSample: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case didRenew, consumptionRequest, summary, externalPurchaseToken, rescindConsent

    var json: String {
        switch self {
        case .didRenew: AppStoreModelSamples.didRenewNotification
        case .consumptionRequest: AppStoreModelSamples.consumptionRequestNotification
        case .summary: AppStoreModelSamples.summaryNotification
        case .externalPurchaseToken: AppStoreModelSamples.externalPurchaseTokenNotification
        case .rescindConsent: AppStoreModelSamples.rescindConsentNotification
        }
    }

    var testDescription: String { rawValue }
}

/// Decoding and encoding the way a caller would, with plain JSONDecoder/JSONEncoder.
enum AppStoreModelCoding {
    static func decode<T: Decodable>(_ type: T.Type, from json: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    static func roundTrip<T: Codable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }

    /// The encoded value as a JSON object, to check which keys went on the wire.
    static func encodedObject(_ value: some Encodable) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value))
        return object as? [String: Any] ?? [:]
    }
}
