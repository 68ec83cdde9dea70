import FoundationEssentials

/// How a monthly subscription with a 12-month commitment will be billed at renewal.
///
/// [renewalBillingPlanType](https://developer.apple.com/documentation/appstoreserverapi/renewalbillingplantype)
public enum RenewalBillingPlanType: String, Codable, Sendable, Hashable, CaseIterable {
    case billedUpfront = "BILLED_UPFRONT"
    case monthly = "MONTHLY"
}
