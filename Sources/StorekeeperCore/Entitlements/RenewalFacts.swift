/// What an entitlement keeps of Apple's signed renewal info: whether it will renew, to what,
/// and whether Apple is retrying a failed charge. The version Apple signed last wins.
public struct RenewalFacts: Codable, Sendable, Equatable, Hashable {
    public var autoRenewStatus: Int32?
    public var autoRenewProductId: String?
    public var expirationIntent: Int32?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDate: Int64?
    public var priceIncreaseStatus: Int32?
    public var renewalDate: Int64?
    public var signedDate: Int64
    // Kept since issue 14 (optional, so records stored before still decode).
    /// In milliunits of `currency` (10990 is 10.99), as Apple signs it.
    public var renewalPrice: Int64?
    public var currency: String?
    public var eligibleWinBackOfferIds: [String]?
    /// The wire value of `offerType` of the offer that applies at renewal.
    public var offerType: Int32?
    public var offerIdentifier: String?
    public var offerDiscountType: String?
    public var appTransactionId: String?
    /// For a plan with a commitment: whether the commitment renews decides `willRenew`.
    public var commitmentInfo: RenewalCommitmentInfo?

    public init(_ renewal: JWSRenewalInfoDecodedPayload, signedDate fallback: Int64) {
        autoRenewStatus = renewal.rawAutoRenewStatus
        autoRenewProductId = renewal.autoRenewProductId
        expirationIntent = renewal.rawExpirationIntent
        isInBillingRetryPeriod = renewal.isInBillingRetryPeriod
        gracePeriodExpiresDate = renewal.gracePeriodExpiresDate
        priceIncreaseStatus = renewal.rawPriceIncreaseStatus
        renewalDate = renewal.renewalDate
        signedDate = renewal.signedDate ?? fallback
        renewalPrice = renewal.renewalPrice
        currency = renewal.currency
        eligibleWinBackOfferIds = renewal.eligibleWinBackOfferIds
        offerType = renewal.rawOfferType
        offerIdentifier = renewal.offerIdentifier
        offerDiscountType = renewal.rawOfferDiscountType
        appTransactionId = renewal.appTransactionId
        commitmentInfo = renewal.commitmentInfo
    }

    /// Whether the subscription will renew: for a plan with a commitment, the commitment's
    /// auto-renew status (the month's renews inside the commitment regardless); nil when
    /// Apple said neither.
    public var willRenew: Bool? {
        if let commitment = commitmentInfo?.rawCommitmentAutoRenewStatus { return commitment == 1 }
        return autoRenewStatus.map { $0 == 1 }
    }

    func isNewer(than other: RenewalFacts) -> Bool {
        if signedDate != other.signedDate { return signedDate > other.signedDate }
        return MergeOrder.isGreater(self, than: other)
    }
}
