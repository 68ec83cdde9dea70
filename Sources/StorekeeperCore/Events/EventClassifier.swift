/// Decides which event, if any, one applied fact makes: pure, from the record before and
/// after. An event reports a change a customer's backend can see (status, period, product,
/// auto-renew, billing, revocation, price consent), so a duplicate, a stale fact or
/// reconciliation's daily re-signed answer records nothing.
///
/// The type comes from Apple's notification type when it says what happened (`DID_RENEW` is a
/// renewal whatever else moved); otherwise, and for the other sources, from what changed.
public enum EventClassifier {
    /// What a customer's backend can see of a purchase record.
    struct VisibleState: Equatable {
        var status: EntitlementStatus
        var transactionId: String?
        var productId: String?
        var expiresDate: Int64?
        var revocationDate: Int64?
        var willRenew: Bool?
        var autoRenewProductId: String?
        var billingRetry: Bool?
        var gracePeriodEnd: Int64?
        var priceIncreaseStatus: Int32?

        init(_ record: EntitlementRecord) {
            let latest = record.latestTransaction
            status = record.status
            transactionId = latest?.transactionId
            productId = latest?.productId
            expiresDate = latest?.expiresDate
            revocationDate = latest?.revocationDate
            willRenew = record.renewal?.willRenew
            autoRenewProductId = record.renewal?.autoRenewProductId
            billingRetry = record.renewal?.isInBillingRetryPeriod
            gracePeriodEnd = record.gracePeriodEnd
            priceIncreaseStatus = record.renewal?.priceIncreaseStatus
        }
    }

    /// Notifications that are events of their own even when nothing in a record changes.
    public static let standalone: [NotificationTypeV2: EventType] = [
        .consumptionRequest: .consumptionRequest, .rescindConsent: .rescindConsent,
        .externalPurchaseToken: .externalPurchaseToken, .test: .test, .refundDeclined: .refundDeclined,
    ]

    /// The event `fact` makes, taking the record from `before` to `after`; nil when nothing a
    /// backend sees changed.
    public static func type(of fact: AppleFact, before: EntitlementRecord?, after: EntitlementRecord) -> EventType? {
        let new = VisibleState(after)
        guard let before else { return purchaseType(of: after) }
        let old = VisibleState(before)
        guard old != new else { return nil }
        if let type = fact.notificationType, let named = named(type, subtype: fact.subtype, after: after) { return named }
        return changed(from: old, to: new, record: after)
    }

    /// A first record: the purchase's kind.
    static func purchaseType(of record: EntitlementRecord) -> EventType {
        switch record.latestTransaction?.type {
        case .nonRenewingSubscription, .nonConsumable: .nonRenewingPurchase
        case .consumable: .consumablePurchase
        case .autoRenewableSubscription, nil: .initialPurchase
        }
    }

    /// What Apple's notification type says happened, when it says.
    static func named(_ type: NotificationTypeV2, subtype: String?, after: EntitlementRecord) -> EventType? {
        switch type {
        case .subscribed: subtype == "RESUBSCRIBE" ? .renewal : .initialPurchase
        case .didRenew: .renewal
        case .didChangeRenewalPref: .productChange
        case .didChangeRenewalStatus:
            subtype == "AUTO_RENEW_DISABLED" ? .cancellation : subtype == "AUTO_RENEW_ENABLED" ? .uncancellation : nil
        case .offerRedeemed: subtype == "UPGRADE" || subtype == "DOWNGRADE" ? .productChange : nil
        case .didFailToRenew: subtype == "GRACE_PERIOD" ? .gracePeriod : .billingIssue
        case .expired, .gracePeriodExpired: .expiration
        case .refund: .refund
        case .refundReversed: .refundReversed
        case .revoke: .familySharingRevoked
        case .priceIncrease: .priceIncrease
        case .renewalExtended: .subscriptionExtended
        case .oneTimeCharge: purchaseType(of: after)
        default: nil
        }
    }

    /// What changed, the most telling first.
    static func changed(from old: VisibleState, to new: VisibleState, record: EntitlementRecord) -> EventType {
        if new.status != old.status {
            switch new.status {
            case .refunded: return .refund
            case .revoked: return .familySharingRevoked
            case .expired: return .expiration
            case .grace: return .gracePeriod
            case .billingRetry: return .billingIssue
            case .active, .lifetime:
                if old.status == .refunded || old.status == .revoked { return .refundReversed }
            }
        }
        if new.transactionId != old.transactionId {
            return new.productId != old.productId ? .productChange : .renewal
        }
        if new.revocationDate == nil, old.revocationDate != nil { return .refundReversed }
        if let expires = new.expiresDate, let previous = old.expiresDate, expires > previous { return .subscriptionExtended }
        if new.willRenew != old.willRenew, let willRenew = new.willRenew { return willRenew ? .uncancellation : .cancellation }
        if new.autoRenewProductId != old.autoRenewProductId { return .productChange }
        if new.billingRetry == true, old.billingRetry != true { return new.gracePeriodEnd == nil ? .billingIssue : .gracePeriod }
        if new.priceIncreaseStatus != old.priceIncreaseStatus { return .priceIncrease }
        return .update
    }
}
