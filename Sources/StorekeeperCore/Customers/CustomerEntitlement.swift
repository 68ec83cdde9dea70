/// One entitlement of a customer, as `get-customer` answers it under `entitlements`: active
/// when any product or grant that gives it is active, described by the one that decides
/// (the active one with the latest expiry; when none is active, the one that ended last).
public struct CustomerEntitlement: Encodable, Sendable, Equatable {
    public enum GrantedBy: String, Encodable, Sendable {
        case purchase, grant
    }

    public var active: Bool
    public var productId: String?
    /// Milliseconds; nil for a lifetime purchase, a grant without end, or a non-renewing
    /// subscription the catalog gives no duration (`durationUnknown`).
    public var expiresDate: Int64?
    public var purchaseDate: Int64?
    public var periodType: PeriodType
    public var willRenew: Bool
    public var unsubscribeDetectedAt: Int64?
    public var billingIssueDetectedAt: Int64?
    public var gracePeriodExpiresDate: Int64?
    public var expirationReason: String?
    public var isFamilyShare: Bool
    public var environment: String?
    public var grantedBy: GrantedBy
    /// Only when true: the deciding purchase is a non-renewing subscription of unknown duration.
    public var durationUnknown: Bool
    /// For a grant: the one `revoke-grant` names.
    public var grantId: String?

    init(_ purchase: CustomerPurchase) {
        active = purchase.active
        productId = purchase.latest.productId
        expiresDate = purchase.expiresDate
        purchaseDate = purchase.latest.purchaseDate
        periodType = purchase.periodType
        willRenew = purchase.willRenew
        unsubscribeDetectedAt = purchase.record.autoRenewOff?.since
        billingIssueDetectedAt = purchase.record.billingIssue?.since
        gracePeriodExpiresDate = purchase.record.gracePeriodEnd
        expirationReason = purchase.expirationReason
        isFamilyShare = purchase.isFamilyShare
        environment = purchase.latest.rawEnvironment
        grantedBy = .purchase
        durationUnknown = purchase.durationUnknown
    }

    init(_ grant: EntitlementGrant, now: Int64) {
        active = grant.isActive(at: now)
        expiresDate = grant.expiresDate
        purchaseDate = grant.grantedAt
        periodType = .normal
        willRenew = false
        isFamilyShare = false
        grantedBy = .grant
        durationUnknown = false
        grantId = grant.grantId
        if !active { expirationReason = grant.revokedAt != nil ? "grant_revoked" : "expired" }
    }

    /// Which of two candidates decides: an active one over an inactive one, then the later
    /// expiry (no expiry is latest), then the later purchase.
    static func decides(_ lhs: CustomerEntitlement, over rhs: CustomerEntitlement) -> Bool {
        if lhs.active != rhs.active { return lhs.active }
        let left = lhs.expiresDate ?? .max, right = rhs.expiresDate ?? .max
        if left != right { return left > right }
        return (lhs.purchaseDate ?? .min) > (rhs.purchaseDate ?? .min)
    }

    enum CodingKeys: String, CodingKey {
        case active, productId, expiresDate, purchaseDate, periodType, willRenew, unsubscribeDetectedAt
        case billingIssueDetectedAt, gracePeriodExpiresDate, expirationReason, isFamilyShare, environment, grantedBy
        case durationUnknown, grantId
    }

    /// Every field of the shape, null when unknown; `durationUnknown` and `grantId` only when they say something.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(active, forKey: .active)
        try container.encode(productId, forKey: .productId)
        try container.encode(expiresDate, forKey: .expiresDate)
        try container.encode(purchaseDate, forKey: .purchaseDate)
        try container.encode(periodType, forKey: .periodType)
        try container.encode(willRenew, forKey: .willRenew)
        try container.encode(unsubscribeDetectedAt, forKey: .unsubscribeDetectedAt)
        try container.encode(billingIssueDetectedAt, forKey: .billingIssueDetectedAt)
        try container.encode(gracePeriodExpiresDate, forKey: .gracePeriodExpiresDate)
        try container.encode(expirationReason, forKey: .expirationReason)
        try container.encode(isFamilyShare, forKey: .isFamilyShare)
        try container.encode(environment, forKey: .environment)
        try container.encode(grantedBy, forKey: .grantedBy)
        if durationUnknown { try container.encode(true, forKey: .durationUnknown) }
        try container.encodeIfPresent(grantId, forKey: .grantId)
    }
}
