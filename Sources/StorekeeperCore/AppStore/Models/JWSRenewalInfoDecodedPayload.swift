import FoundationEssentials

/// The decoded payload of a `JWSRenewalInfo`: renewal information for an auto-renewable
/// subscription.
///
/// Wire enums are stored raw (`rawAutoRenewStatus`, ...) and offered as typed optionals;
/// dates are Apple's milliseconds since 1970 with `Date` accessors. Advanced Commerce API
/// fields are not modelled.
///
/// [JWSRenewalInfoDecodedPayload](https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload)
public struct JWSRenewalInfoDecodedPayload: Codable, Sendable, Equatable, Hashable {
    /// The wire value of `expirationIntent`.
    public var rawExpirationIntent: Int32?
    public var originalTransactionId: String?
    /// The product that renews at the next billing period.
    public var autoRenewProductId: String?
    public var productId: String?
    /// The wire value of `autoRenewStatus`.
    public var rawAutoRenewStatus: Int32?
    /// Whether the App Store is still trying to renew an expired subscription.
    public var isInBillingRetryPeriod: Bool?
    /// The wire value of `priceIncreaseStatus`.
    public var rawPriceIncreaseStatus: Int32?
    /// When the billing grace period ends, in milliseconds since 1970.
    public var gracePeriodExpiresDate: Int64?
    /// The wire value of `offerType`.
    public var rawOfferType: Int32?
    public var offerIdentifier: String?
    /// When the App Store signed the renewal information, in milliseconds since 1970.
    public var signedDate: Int64?
    /// The wire value of `environment`.
    public var rawEnvironment: String?
    /// The start of the current run of paid service, ignoring lapses shorter than 60 days,
    /// in milliseconds since 1970.
    public var recentSubscriptionStartDate: Int64?
    /// When the most recent purchase expires (the next renewal), in milliseconds since 1970.
    public var renewalDate: Int64?
    /// The ISO 4217 currency code of `renewalPrice`.
    public var currency: String?
    /// The price at the next renewal, in milliunits of `currency`.
    public var renewalPrice: Int64?
    /// The wire value of `offerDiscountType`.
    public var rawOfferDiscountType: String?
    /// Win-back offers the customer may redeem, best first.
    public var eligibleWinBackOfferIds: [String]?
    /// The UUID the app attached to the purchase to name its customer.
    public var appAccountToken: String?
    public var appTransactionId: String?
    /// The ISO 8601 duration of the offer.
    public var offerPeriod: String?
    /// The wire value of `renewalBillingPlanType`.
    public var rawRenewalBillingPlanType: String?
    /// The renewal commitment of a monthly subscription with a 12-month commitment.
    public var commitmentInfo: RenewalCommitmentInfo?

    public init(
        rawExpirationIntent: Int32? = nil,
        originalTransactionId: String? = nil,
        autoRenewProductId: String? = nil,
        productId: String? = nil,
        rawAutoRenewStatus: Int32? = nil,
        isInBillingRetryPeriod: Bool? = nil,
        rawPriceIncreaseStatus: Int32? = nil,
        gracePeriodExpiresDate: Int64? = nil,
        rawOfferType: Int32? = nil,
        offerIdentifier: String? = nil,
        signedDate: Int64? = nil,
        rawEnvironment: String? = nil,
        recentSubscriptionStartDate: Int64? = nil,
        renewalDate: Int64? = nil,
        currency: String? = nil,
        renewalPrice: Int64? = nil,
        rawOfferDiscountType: String? = nil,
        eligibleWinBackOfferIds: [String]? = nil,
        appAccountToken: String? = nil,
        appTransactionId: String? = nil,
        offerPeriod: String? = nil,
        rawRenewalBillingPlanType: String? = nil,
        commitmentInfo: RenewalCommitmentInfo? = nil
    ) {
        self.rawExpirationIntent = rawExpirationIntent
        self.originalTransactionId = originalTransactionId
        self.autoRenewProductId = autoRenewProductId
        self.productId = productId
        self.rawAutoRenewStatus = rawAutoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.rawPriceIncreaseStatus = rawPriceIncreaseStatus
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.rawOfferType = rawOfferType
        self.offerIdentifier = offerIdentifier
        self.signedDate = signedDate
        self.rawEnvironment = rawEnvironment
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.renewalDate = renewalDate
        self.currency = currency
        self.renewalPrice = renewalPrice
        self.rawOfferDiscountType = rawOfferDiscountType
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
        self.appAccountToken = appAccountToken
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
        self.rawRenewalBillingPlanType = rawRenewalBillingPlanType
        self.commitmentInfo = commitmentInfo
    }

    // MARK: Typed wire enums

    public var expirationIntent: ExpirationIntent? {
        get { rawExpirationIntent.flatMap(ExpirationIntent.init(rawValue:)) }
        set { rawExpirationIntent = newValue?.rawValue }
    }

    public var autoRenewStatus: AutoRenewStatus? {
        get { rawAutoRenewStatus.flatMap(AutoRenewStatus.init(rawValue:)) }
        set { rawAutoRenewStatus = newValue?.rawValue }
    }

    public var priceIncreaseStatus: PriceIncreaseStatus? {
        get { rawPriceIncreaseStatus.flatMap(PriceIncreaseStatus.init(rawValue:)) }
        set { rawPriceIncreaseStatus = newValue?.rawValue }
    }

    public var offerType: OfferType? {
        get { rawOfferType.flatMap(OfferType.init(rawValue:)) }
        set { rawOfferType = newValue?.rawValue }
    }

    public var environment: Environment? {
        get { rawEnvironment.flatMap(Environment.init(rawValue:)) }
        set { rawEnvironment = newValue?.rawValue }
    }

    public var offerDiscountType: OfferDiscountType? {
        get { rawOfferDiscountType.flatMap(OfferDiscountType.init(rawValue:)) }
        set { rawOfferDiscountType = newValue?.rawValue }
    }

    public var renewalBillingPlanType: RenewalBillingPlanType? {
        get { rawRenewalBillingPlanType.flatMap(RenewalBillingPlanType.init(rawValue:)) }
        set { rawRenewalBillingPlanType = newValue?.rawValue }
    }

    /// `appAccountToken` parsed as a UUID; `nil` when absent or malformed.
    public var appAccountTokenValue: UUID? {
        appAccountToken.flatMap(UUID.init(uuidString:))
    }

    // MARK: Dates

    public var gracePeriodExpiresDateValue: Date? {
        get { AppStoreMilliseconds.date(gracePeriodExpiresDate) }
        set { gracePeriodExpiresDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    public var signedDateValue: Date? {
        get { AppStoreMilliseconds.date(signedDate) }
        set { signedDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    public var recentSubscriptionStartDateValue: Date? {
        get { AppStoreMilliseconds.date(recentSubscriptionStartDate) }
        set { recentSubscriptionStartDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    public var renewalDateValue: Date? {
        get { AppStoreMilliseconds.date(renewalDate) }
        set { renewalDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    enum CodingKeys: String, CodingKey {
        case rawExpirationIntent = "expirationIntent"
        case originalTransactionId
        case autoRenewProductId
        case productId
        case rawAutoRenewStatus = "autoRenewStatus"
        case isInBillingRetryPeriod
        case rawPriceIncreaseStatus = "priceIncreaseStatus"
        case gracePeriodExpiresDate
        case rawOfferType = "offerType"
        case offerIdentifier
        case signedDate
        case rawEnvironment = "environment"
        case recentSubscriptionStartDate
        case renewalDate
        case currency
        case renewalPrice
        case rawOfferDiscountType = "offerDiscountType"
        case eligibleWinBackOfferIds
        case appAccountToken
        case appTransactionId
        case offerPeriod
        case rawRenewalBillingPlanType = "renewalBillingPlanType"
        case commitmentInfo
    }
}
