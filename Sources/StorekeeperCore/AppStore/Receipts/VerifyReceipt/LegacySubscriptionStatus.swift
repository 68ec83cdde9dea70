import FoundationEssentials

/// The status of one subscription (original transaction id) as the legacy verifyReceipt
/// fields tell it, inferred at a given time: the "old track" recorded side by side with the
/// App Store Server API's answer during a migration, so disagreements can be reported.
public struct LegacySubscriptionStatus: Sendable, Equatable, Encodable {
    /// The same names as the entitlement states of the new track.
    public enum State: String, Sendable, Equatable, Encodable {
        case active
        /// Billing failed, access continues until `gracePeriodExpiresDate`.
        case grace
        /// Billing failed, no grace (or it ended); Apple keeps retrying.
        case billingRetry = "billing_retry"
        case expired
        /// The latest transaction was refunded or revoked (cancellation_date).
        case refunded
    }

    public var originalTransactionId: String
    public var productId: String?
    public var state: State
    /// Milliseconds since 1970, as the App Store Server API writes dates.
    public var expiresDate: Int64?
    public var gracePeriodExpiresDate: Int64?
    public var expirationIntent: Int32?
    public var autoRenew: Bool?

    /// One status per original transaction id found in `latest_receipt_info`, sorted by id.
    /// A purchase without an expiry (a non-consumable) is active unless refunded.
    public static func infer(from response: VerifyReceiptResponse, now: Date) -> [LegacySubscriptionStatus] {
        let nowMs = now.millisecondsSince1970
        let renewals = Dictionary((response.pendingRenewalInfo ?? []).map { ($0.originalTransactionId, $0) }, uniquingKeysWith: { first, _ in first })
        let groups = Dictionary(grouping: response.latestReceiptInfo ?? [], by: \.originalTransactionId)
        return groups.keys.sorted().compactMap { id -> LegacySubscriptionStatus? in
            // The latest: the one that runs longest, then the latest bought.
            guard let latest = groups[id]?.max(by: { ($0.expiresDate ?? .min, $0.purchaseDate ?? .min) < ($1.expiresDate ?? .min, $1.purchaseDate ?? .min) }) else { return nil }
            let renewal = renewals[id]
            let state: State
            if latest.cancellationDate != nil && !latest.upgraded {
                state = .refunded
            } else if let expires = latest.expiresDate {
                if expires > nowMs {
                    state = .active
                } else if let grace = renewal?.gracePeriodExpiresDate, grace > nowMs, renewal?.inBillingRetry == true {
                    state = .grace
                } else if renewal?.inBillingRetry == true {
                    state = .billingRetry
                } else {
                    state = .expired
                }
            } else {
                state = .active
            }
            return LegacySubscriptionStatus(
                originalTransactionId: id, productId: latest.productId ?? renewal?.productId, state: state,
                expiresDate: latest.expiresDate, gracePeriodExpiresDate: renewal?.gracePeriodExpiresDate,
                expirationIntent: renewal?.expirationReason?.rawValue, autoRenew: renewal?.willAutoRenew)
        }
    }
}
