import FoundationEssentials

/// Further detail for some version 2 notification types.
///
/// [subtype](https://developer.apple.com/documentation/appstoreservernotifications/subtype)
public enum Subtype: String, Codable, Sendable, Hashable, CaseIterable {
    case accepted = "ACCEPTED"
    case activeTokenReminder = "ACTIVE_TOKEN_REMINDER"
    case autoRenewDisabled = "AUTO_RENEW_DISABLED"
    case autoRenewEnabled = "AUTO_RENEW_ENABLED"
    case billingRecovery = "BILLING_RECOVERY"
    case billingRetry = "BILLING_RETRY"
    case created = "CREATED"
    case downgrade = "DOWNGRADE"
    case failure = "FAILURE"
    case gracePeriod = "GRACE_PERIOD"
    case initialBuy = "INITIAL_BUY"
    case pending = "PENDING"
    case priceIncrease = "PRICE_INCREASE"
    case productNotForSale = "PRODUCT_NOT_FOR_SALE"
    case resubscribe = "RESUBSCRIBE"
    case summary = "SUMMARY"
    case unreported = "UNREPORTED"
    case upgrade = "UPGRADE"
    case voluntary = "VOLUNTARY"
}
