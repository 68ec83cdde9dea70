import FoundationEssentials

/// How a monthly subscription with a 12-month commitment is billed, on a transaction.
///
/// [billingPlanType](https://developer.apple.com/documentation/appstoreserverapi/billingplantype)
public enum BillingPlanType: String, Codable, Sendable, Hashable, CaseIterable {
    case billedUpfront = "BILLED_UPFRONT"
    case monthly = "MONTHLY"
}
