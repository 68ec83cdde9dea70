/// The vocabulary of `Event.type`: what happened to a customer, in words a backend acts on
/// rather than Apple's notification names. Documented in the README ("Events out"); a
/// receiver should ignore a type it does not know (the list grows, it never renames).
public enum EventType: String, Codable, Sendable, CaseIterable {
    /// A first purchase of an auto-renewable subscription.
    case initialPurchase = "INITIAL_PURCHASE"
    /// A new period of the same product: a renewal, a recovered billing retry, a resubscription.
    case renewal = "RENEWAL"
    /// Auto-renew turned off: still active until the period ends.
    case cancellation = "CANCELLATION"
    /// Auto-renew turned back on.
    case uncancellation = "UNCANCELLATION"
    /// Apple failed to charge and is retrying, without a grace period.
    case billingIssue = "BILLING_ISSUE"
    /// Apple failed to charge; the customer keeps access during the billing grace period.
    case gracePeriod = "GRACE_PERIOD"
    /// The subscription ended (voluntarily, after billing retry, at the end of a grace period).
    case expiration = "EXPIRATION"
    /// Apple refunded a purchase: access is gone.
    case refund = "REFUND"
    /// Apple reversed a refund: access is back.
    case refundReversed = "REFUND_REVERSED"
    /// Apple declined a refund request (the outcome of a `CONSUMPTION_REQUEST`).
    case refundDeclined = "REFUND_DECLINED"
    /// An upgrade, downgrade or crossgrade, now or at the next renewal.
    case productChange = "PRODUCT_CHANGE"
    /// A non-renewing subscription or a non-consumable bought.
    case nonRenewingPurchase = "NON_RENEWING_PURCHASE"
    case consumablePurchase = "CONSUMABLE_PURCHASE"
    /// Apple extended the current period (a renewal date extension).
    case subscriptionExtended = "SUBSCRIPTION_EXTENDED"
    /// A price increase was announced, or the customer consented to it.
    case priceIncrease = "PRICE_INCREASE"
    /// A purchase now belongs to another customer (`previousCustomerId`): a purchase linked to
    /// a user after it was anonymous, a move under the transfer policy, a merge, a deletion.
    case transfer = "TRANSFER"
    /// Support gave an entitlement (`grant-entitlement`), or took a grant back.
    case grantAdded = "GRANT_ADDED"
    case grantRevoked = "GRANT_REVOKED"
    /// Family Sharing withdrawn (or a group seat taken back): access is gone, no refund.
    case familySharingRevoked = "FAMILY_SHARING_REVOKED"
    /// Apple's notifications the app must act on although no entitlement changes.
    case consumptionRequest = "CONSUMPTION_REQUEST"
    case rescindConsent = "RESCIND_CONSENT"
    case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
    case test = "TEST"
    /// A change none of the above names (reconciliation corrected a detail, say).
    case update = "UPDATE"
}
