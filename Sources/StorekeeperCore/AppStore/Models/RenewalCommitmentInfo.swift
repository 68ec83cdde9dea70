import FoundationEssentials

/// The renewal commitment of a monthly subscription with a 12-month commitment.
///
/// [RenewalCommitmentInfo](https://developer.apple.com/documentation/appstoreserverapi/renewalcommitmentinfo)
public struct RenewalCommitmentInfo: Codable, Sendable, Equatable, Hashable {
    /// The product the customer commits to at renewal.
    public var commitmentAutoRenewProductId: String?
    /// The wire value of `commitmentAutoRenewStatus`.
    public var rawCommitmentAutoRenewStatus: Int32?
    /// The wire value of `commitmentRenewalBillingPlanType`.
    public var rawCommitmentRenewalBillingPlanType: String?
    /// When the commitment renews, in milliseconds since 1970.
    public var commitmentRenewalDate: Int64?
    /// The commitment renewal price, in milliunits of the renewal currency.
    public var commitmentRenewalPrice: Int64?

    public init(
        commitmentAutoRenewProductId: String? = nil,
        rawCommitmentAutoRenewStatus: Int32? = nil,
        rawCommitmentRenewalBillingPlanType: String? = nil,
        commitmentRenewalDate: Int64? = nil,
        commitmentRenewalPrice: Int64? = nil
    ) {
        self.commitmentAutoRenewProductId = commitmentAutoRenewProductId
        self.rawCommitmentAutoRenewStatus = rawCommitmentAutoRenewStatus
        self.rawCommitmentRenewalBillingPlanType = rawCommitmentRenewalBillingPlanType
        self.commitmentRenewalDate = commitmentRenewalDate
        self.commitmentRenewalPrice = commitmentRenewalPrice
    }

    public var commitmentAutoRenewStatus: AutoRenewStatus? {
        get { rawCommitmentAutoRenewStatus.flatMap(AutoRenewStatus.init(rawValue:)) }
        set { rawCommitmentAutoRenewStatus = newValue?.rawValue }
    }

    public var commitmentRenewalBillingPlanType: RenewalBillingPlanType? {
        get { rawCommitmentRenewalBillingPlanType.flatMap(RenewalBillingPlanType.init(rawValue:)) }
        set { rawCommitmentRenewalBillingPlanType = newValue?.rawValue }
    }

    public var commitmentRenewalDateValue: Date? {
        get { AppStoreMilliseconds.date(commitmentRenewalDate) }
        set { commitmentRenewalDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    enum CodingKeys: String, CodingKey {
        case commitmentAutoRenewProductId
        case rawCommitmentAutoRenewStatus = "commitmentAutoRenewStatus"
        case rawCommitmentRenewalBillingPlanType = "commitmentRenewalBillingPlanType"
        case commitmentRenewalDate
        case commitmentRenewalPrice
    }
}
