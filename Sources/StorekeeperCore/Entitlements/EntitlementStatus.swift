/// Where a purchase stands. Stored and answered as the raw strings.
public enum EntitlementStatus: String, Codable, Sendable, CaseIterable {
    /// Paid up: the current period has not ended.
    case active
    /// Renewal failed, but Apple's billing grace period still grants access.
    case grace
    /// Renewal failed and Apple is still trying to charge; no access.
    case billingRetry = "billing_retry"
    /// The period ended and the subscription did not renew.
    case expired
    /// Apple refunded the purchase.
    case refunded
    /// Access withdrawn without a refund to this user (Family Sharing stopped, for example).
    case revoked
    /// A non-consumable: owned for good unless refunded.
    case lifetime

    /// Whether this status grants the paid features, before expiry dates are looked at.
    var grantsAccess: Bool {
        switch self {
        case .active, .grace, .lifetime: true
        case .billingRetry, .expired, .refunded, .revoked: false
        }
    }
}
