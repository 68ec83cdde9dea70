import FoundationEssentials

/// The event an App Store Server Notifications V2 message reports.
///
/// Models keep the wire string (`rawNotificationType`) and expose this enum as an optional,
/// so a type Apple adds later decodes as `nil` instead of failing the whole notification.
///
/// [notificationType](https://developer.apple.com/documentation/appstoreservernotifications/notificationtype)
public enum NotificationTypeV2: String, Codable, Sendable, Hashable, CaseIterable {
    case consumptionRequest = "CONSUMPTION_REQUEST"
    case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
    case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
    case didFailToRenew = "DID_FAIL_TO_RENEW"
    case didRenew = "DID_RENEW"
    case expired = "EXPIRED"
    case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
    case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
    /// Advanced Commerce API only: the Change Subscription Metadata endpoint was called.
    case metadataUpdate = "METADATA_UPDATE"
    /// Advanced Commerce API only: a subscription was migrated to the Advanced Commerce API.
    case migration = "MIGRATION"
    /// The same event as Apple's App Store Server Notifications changelog once spelled it;
    /// Apple's server libraries spell it `MIGRATION`. Both are accepted.
    case migrate = "MIGRATE"
    case offerRedeemed = "OFFER_REDEEMED"
    case oneTimeCharge = "ONE_TIME_CHARGE"
    /// Advanced Commerce API only: the Change Subscription Price endpoint was called.
    case priceChange = "PRICE_CHANGE"
    case priceIncrease = "PRICE_INCREASE"
    case refund = "REFUND"
    case refundDeclined = "REFUND_DECLINED"
    case refundReversed = "REFUND_REVERSED"
    case renewalExtended = "RENEWAL_EXTENDED"
    case renewalExtension = "RENEWAL_EXTENSION"
    /// A parent or guardian withdrew consent for a child's use of the app; the payload carries `appData`.
    case rescindConsent = "RESCIND_CONSENT"
    case revoke = "REVOKE"
    case subscribed = "SUBSCRIBED"
    case test = "TEST"
}
