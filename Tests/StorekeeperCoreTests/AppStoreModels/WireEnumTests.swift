import Foundation
import StorekeeperCore
import Testing

/// Every documented wire value maps to its case. The tables are written out by hand from
/// Apple's documentation, so a misspelt raw value in the enum fails here.
@Suite("Wire enums")
struct WireEnumTests {
    static let notificationTypes: [(String, NotificationTypeV2)] = [
        ("CONSUMPTION_REQUEST", .consumptionRequest),
        ("DID_CHANGE_RENEWAL_PREF", .didChangeRenewalPref),
        ("DID_CHANGE_RENEWAL_STATUS", .didChangeRenewalStatus),
        ("DID_FAIL_TO_RENEW", .didFailToRenew),
        ("DID_RENEW", .didRenew),
        ("EXPIRED", .expired),
        ("EXTERNAL_PURCHASE_TOKEN", .externalPurchaseToken),
        ("GRACE_PERIOD_EXPIRED", .gracePeriodExpired),
        ("METADATA_UPDATE", .metadataUpdate),
        ("MIGRATION", .migration),
        ("MIGRATE", .migrate),
        ("OFFER_REDEEMED", .offerRedeemed),
        ("ONE_TIME_CHARGE", .oneTimeCharge),
        ("PRICE_CHANGE", .priceChange),
        ("PRICE_INCREASE", .priceIncrease),
        ("REFUND", .refund),
        ("REFUND_DECLINED", .refundDeclined),
        ("REFUND_REVERSED", .refundReversed),
        ("RENEWAL_EXTENDED", .renewalExtended),
        ("RENEWAL_EXTENSION", .renewalExtension),
        ("RESCIND_CONSENT", .rescindConsent),
        ("REVOKE", .revoke),
        ("SUBSCRIBED", .subscribed),
        ("TEST", .test),
    ]

    static let subtypes: [(String, Subtype)] = [
        ("ACCEPTED", .accepted),
        ("ACTIVE_TOKEN_REMINDER", .activeTokenReminder),
        ("AUTO_RENEW_DISABLED", .autoRenewDisabled),
        ("AUTO_RENEW_ENABLED", .autoRenewEnabled),
        ("BILLING_RECOVERY", .billingRecovery),
        ("BILLING_RETRY", .billingRetry),
        ("CREATED", .created),
        ("DOWNGRADE", .downgrade),
        ("FAILURE", .failure),
        ("GRACE_PERIOD", .gracePeriod),
        ("INITIAL_BUY", .initialBuy),
        ("PENDING", .pending),
        ("PRICE_INCREASE", .priceIncrease),
        ("PRODUCT_NOT_FOR_SALE", .productNotForSale),
        ("RESUBSCRIBE", .resubscribe),
        ("SUMMARY", .summary),
        ("UNREPORTED", .unreported),
        ("UPGRADE", .upgrade),
        ("VOLUNTARY", .voluntary),
    ]

    @Test("each documented notificationType decodes to its case", arguments: notificationTypes)
    func notificationType(raw: String, expected: NotificationTypeV2) throws {
        #expect(NotificationTypeV2(rawValue: raw) == expected)
        let payload = try AppStoreModelCoding.decode(
            ResponseBodyV2DecodedPayload.self, from: #"{"notificationType": "\#(raw)"}"#)
        #expect(payload.notificationType == expected)
        #expect(payload.rawNotificationType == raw)
    }

    @Test("each documented subtype decodes to its case", arguments: subtypes)
    func subtype(raw: String, expected: Subtype) throws {
        #expect(Subtype(rawValue: raw) == expected)
        let payload = try AppStoreModelCoding.decode(
            ResponseBodyV2DecodedPayload.self, from: #"{"subtype": "\#(raw)"}"#)
        #expect(payload.subtype == expected)
        #expect(payload.rawSubtype == raw)
    }

    @Test("the tables cover every case, each once")
    func tablesAreComplete() {
        #expect(Set(Self.notificationTypes.map(\.1)) == Set(NotificationTypeV2.allCases))
        #expect(Self.notificationTypes.count == NotificationTypeV2.allCases.count)
        #expect(Set(Self.subtypes.map(\.1)) == Set(Subtype.allCases))
        #expect(Self.subtypes.count == Subtype.allCases.count)
    }

    @Test("wire values are case-sensitive")
    func caseSensitive() {
        #expect(NotificationTypeV2(rawValue: "did_renew") == nil)
        #expect(Environment(rawValue: "sandbox") == nil)
        #expect(TransactionType(rawValue: "consumable") == nil)
    }

    @Test("the other string enums use Apple's spellings")
    func stringEnums() {
        #expect(Environment.allCases.map(\.rawValue) == ["Sandbox", "Production", "Xcode", "LocalTesting"])
        #expect(TransactionType.allCases.map(\.rawValue) == [
            "Auto-Renewable Subscription", "Non-Consumable", "Consumable", "Non-Renewing Subscription",
        ])
        #expect(InAppOwnershipType.allCases.map(\.rawValue) == ["FAMILY_SHARED", "PURCHASED", "ASSIGNED"])
        #expect(TransactionReason.allCases.map(\.rawValue) == ["PURCHASE", "RENEWAL"])
        #expect(OfferDiscountType.allCases.map(\.rawValue) == ["FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT", "ONE_TIME"])
        #expect(RevocationType.allCases.map(\.rawValue) == ["REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE"])
        #expect(ConsumptionRequestReason.allCases.map(\.rawValue) == [
            "UNINTENDED_PURCHASE", "FULFILLMENT_ISSUE", "UNSATISFIED_WITH_PURCHASE", "LEGAL", "OTHER",
        ])
        #expect(PurchasePlatform.allCases.map(\.rawValue) == ["iOS", "macOS", "tvOS", "visionOS"])
        #expect(ExternalPurchaseTokenType.allCases.map(\.rawValue) == ["ACQUISITION", "SERVICES"])
        #expect(BillingPlanType.allCases.map(\.rawValue) == ["BILLED_UPFRONT", "MONTHLY"])
        #expect(RenewalBillingPlanType.allCases.map(\.rawValue) == ["BILLED_UPFRONT", "MONTHLY"])
    }

    @Test("the integer enums use Apple's numbers")
    func integerEnums() {
        #expect(Status.allCases.map(\.rawValue) == [1, 2, 3, 4, 5])
        #expect(Status(rawValue: 3) == .billingRetry)
        #expect(Status(rawValue: 4) == .billingGracePeriod)
        #expect(Status(rawValue: 5) == .revoked)
        #expect(OfferType.allCases.map(\.rawValue) == [1, 2, 3, 4])
        #expect(OfferType(rawValue: 4) == .winBackOffer)
        #expect(ExpirationIntent.allCases.map(\.rawValue) == [1, 2, 3, 4, 5])
        #expect(ExpirationIntent(rawValue: 3) == .customerDidNotConsentToPriceIncrease)
        #expect(AutoRenewStatus(rawValue: 0) == .off)
        #expect(AutoRenewStatus(rawValue: 1) == .on)
        #expect(RevocationReason(rawValue: 0) == .refundedForOtherReason)
        #expect(RevocationReason(rawValue: 1) == .refundedDueToIssue)
        #expect(PriceIncreaseStatus(rawValue: 0) == .customerHasNotResponded)
        #expect(PriceIncreaseStatus(rawValue: 1) == .customerConsentedOrWasNotifiedWithoutNeedingConsent)
    }
}
