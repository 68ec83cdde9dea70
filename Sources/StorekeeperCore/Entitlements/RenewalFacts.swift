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

    public init(_ renewal: JWSRenewalInfoDecodedPayload, signedDate fallback: Int64) {
        autoRenewStatus = renewal.rawAutoRenewStatus
        autoRenewProductId = renewal.autoRenewProductId
        expirationIntent = renewal.rawExpirationIntent
        isInBillingRetryPeriod = renewal.isInBillingRetryPeriod
        gracePeriodExpiresDate = renewal.gracePeriodExpiresDate
        priceIncreaseStatus = renewal.rawPriceIncreaseStatus
        renewalDate = renewal.renewalDate
        signedDate = renewal.signedDate ?? fallback
    }

    func isNewer(than other: RenewalFacts) -> Bool {
        if signedDate != other.signedDate { return signedDate > other.signedDate }
        return MergeOrder.isGreater(self, than: other)
    }
}
