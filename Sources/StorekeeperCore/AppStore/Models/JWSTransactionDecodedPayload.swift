import FoundationEssentials

/// The decoded payload of a `JWSTransaction`: one In-App Purchase transaction.
///
/// Wire enums are stored raw (`rawType`, `rawEnvironment`, ...) and offered as typed
/// optionals, so a value Apple adds later decodes instead of failing. Dates are Apple's
/// milliseconds since 1970 (`purchaseDate`), with `Date` accessors (`purchaseDateValue`).
/// Prices are milliunits of `currency`. Advanced Commerce API fields are not modelled.
///
/// [JWSTransactionDecodedPayload](https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload)
public struct JWSTransactionDecodedPayload: Codable, Sendable, Equatable, Hashable {
    public var transactionId: String?
    public var originalTransactionId: String?
    /// The original transaction identifier of a subscription before it migrated to the
    /// Advanced Commerce API.
    public var previousOriginalTransactionId: String?
    /// The identifier of subscription-purchase events across devices, including renewals.
    public var webOrderLineItemId: String?
    public var bundleId: String?
    public var productId: String?
    public var subscriptionGroupIdentifier: String?
    /// When the App Store charged the customer, in milliseconds since 1970.
    public var purchaseDate: Int64?
    /// The purchase date of the original transaction, in milliseconds since 1970.
    public var originalPurchaseDate: Int64?
    /// When the subscription expires or renews, in milliseconds since 1970.
    public var expiresDate: Int64?
    public var quantity: Int32?
    /// The wire value of `type`.
    public var rawType: String?
    /// The UUID the app attached to the purchase to name its customer; see `appAccountTokenValue`.
    public var appAccountToken: String?
    /// The wire value of `inAppOwnershipType`.
    public var rawInAppOwnershipType: String?
    /// When the App Store signed the transaction, in milliseconds since 1970.
    public var signedDate: Int64?
    /// The wire value of `revocationReason`.
    public var rawRevocationReason: Int32?
    /// When the App Store refunded or revoked the transaction, in milliseconds since 1970.
    public var revocationDate: Int64?
    /// The wire value of `revocationType`.
    public var rawRevocationType: String?
    /// The share of the transaction refunded or revoked, in milliunits (100000 is all of it).
    public var revocationPercentage: Int64?
    public var isUpgraded: Bool?
    /// The wire value of `offerType`.
    public var rawOfferType: Int32?
    /// The offer code or promotional offer identifier.
    public var offerIdentifier: String?
    /// The wire value of `environment`.
    public var rawEnvironment: String?
    /// The three-letter code of the storefront's country or region.
    public var storefront: String?
    public var storefrontId: String?
    /// The wire value of `transactionReason`.
    public var rawTransactionReason: String?
    /// The ISO 4217 currency code of `price`.
    public var currency: String?
    /// The price in milliunits of `currency`.
    public var price: Int64?
    /// The wire value of `offerDiscountType`.
    public var rawOfferDiscountType: String?
    /// The unique identifier of the app download transaction.
    public var appTransactionId: String?
    /// The ISO 8601 duration of the offer.
    public var offerPeriod: String?
    /// The wire value of `billingPlanType`.
    public var rawBillingPlanType: String?
    /// The commitment of a monthly subscription with a 12-month commitment.
    public var commitmentInfo: TransactionCommitmentInfo?

    public init(
        transactionId: String? = nil,
        originalTransactionId: String? = nil,
        previousOriginalTransactionId: String? = nil,
        webOrderLineItemId: String? = nil,
        bundleId: String? = nil,
        productId: String? = nil,
        subscriptionGroupIdentifier: String? = nil,
        purchaseDate: Int64? = nil,
        originalPurchaseDate: Int64? = nil,
        expiresDate: Int64? = nil,
        quantity: Int32? = nil,
        rawType: String? = nil,
        appAccountToken: String? = nil,
        rawInAppOwnershipType: String? = nil,
        signedDate: Int64? = nil,
        rawRevocationReason: Int32? = nil,
        revocationDate: Int64? = nil,
        rawRevocationType: String? = nil,
        revocationPercentage: Int64? = nil,
        isUpgraded: Bool? = nil,
        rawOfferType: Int32? = nil,
        offerIdentifier: String? = nil,
        rawEnvironment: String? = nil,
        storefront: String? = nil,
        storefrontId: String? = nil,
        rawTransactionReason: String? = nil,
        currency: String? = nil,
        price: Int64? = nil,
        rawOfferDiscountType: String? = nil,
        appTransactionId: String? = nil,
        offerPeriod: String? = nil,
        rawBillingPlanType: String? = nil,
        commitmentInfo: TransactionCommitmentInfo? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.previousOriginalTransactionId = previousOriginalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.bundleId = bundleId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.rawType = rawType
        self.appAccountToken = appAccountToken
        self.rawInAppOwnershipType = rawInAppOwnershipType
        self.signedDate = signedDate
        self.rawRevocationReason = rawRevocationReason
        self.revocationDate = revocationDate
        self.rawRevocationType = rawRevocationType
        self.revocationPercentage = revocationPercentage
        self.isUpgraded = isUpgraded
        self.rawOfferType = rawOfferType
        self.offerIdentifier = offerIdentifier
        self.rawEnvironment = rawEnvironment
        self.storefront = storefront
        self.storefrontId = storefrontId
        self.rawTransactionReason = rawTransactionReason
        self.currency = currency
        self.price = price
        self.rawOfferDiscountType = rawOfferDiscountType
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
        self.rawBillingPlanType = rawBillingPlanType
        self.commitmentInfo = commitmentInfo
    }

    // MARK: Typed wire enums

    public var type: TransactionType? {
        get { rawType.flatMap(TransactionType.init(rawValue:)) }
        set { rawType = newValue?.rawValue }
    }

    public var inAppOwnershipType: InAppOwnershipType? {
        get { rawInAppOwnershipType.flatMap(InAppOwnershipType.init(rawValue:)) }
        set { rawInAppOwnershipType = newValue?.rawValue }
    }

    public var revocationReason: RevocationReason? {
        get { rawRevocationReason.flatMap(RevocationReason.init(rawValue:)) }
        set { rawRevocationReason = newValue?.rawValue }
    }

    public var revocationType: RevocationType? {
        get { rawRevocationType.flatMap(RevocationType.init(rawValue:)) }
        set { rawRevocationType = newValue?.rawValue }
    }

    public var offerType: OfferType? {
        get { rawOfferType.flatMap(OfferType.init(rawValue:)) }
        set { rawOfferType = newValue?.rawValue }
    }

    public var environment: Environment? {
        get { rawEnvironment.flatMap(Environment.init(rawValue:)) }
        set { rawEnvironment = newValue?.rawValue }
    }

    public var transactionReason: TransactionReason? {
        get { rawTransactionReason.flatMap(TransactionReason.init(rawValue:)) }
        set { rawTransactionReason = newValue?.rawValue }
    }

    public var offerDiscountType: OfferDiscountType? {
        get { rawOfferDiscountType.flatMap(OfferDiscountType.init(rawValue:)) }
        set { rawOfferDiscountType = newValue?.rawValue }
    }

    public var billingPlanType: BillingPlanType? {
        get { rawBillingPlanType.flatMap(BillingPlanType.init(rawValue:)) }
        set { rawBillingPlanType = newValue?.rawValue }
    }

    /// `appAccountToken` parsed as a UUID; `nil` when absent or malformed.
    public var appAccountTokenValue: UUID? {
        appAccountToken.flatMap(UUID.init(uuidString:))
    }

    // MARK: Dates

    public var purchaseDateValue: Date? {
        get { AppStoreMilliseconds.date(purchaseDate) }
        set { purchaseDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    public var originalPurchaseDateValue: Date? {
        get { AppStoreMilliseconds.date(originalPurchaseDate) }
        set { originalPurchaseDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    public var expiresDateValue: Date? {
        get { AppStoreMilliseconds.date(expiresDate) }
        set { expiresDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    public var signedDateValue: Date? {
        get { AppStoreMilliseconds.date(signedDate) }
        set { signedDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    public var revocationDateValue: Date? {
        get { AppStoreMilliseconds.date(revocationDate) }
        set { revocationDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    enum CodingKeys: String, CodingKey {
        case transactionId
        case originalTransactionId
        case previousOriginalTransactionId
        case webOrderLineItemId
        case bundleId
        case productId
        case subscriptionGroupIdentifier
        case purchaseDate
        case originalPurchaseDate
        case expiresDate
        case quantity
        case rawType = "type"
        case appAccountToken
        case rawInAppOwnershipType = "inAppOwnershipType"
        case signedDate
        case rawRevocationReason = "revocationReason"
        case revocationDate
        case rawRevocationType = "revocationType"
        case revocationPercentage
        case isUpgraded
        case rawOfferType = "offerType"
        case offerIdentifier
        case rawEnvironment = "environment"
        case storefront
        case storefrontId
        case rawTransactionReason = "transactionReason"
        case currency
        case price
        case rawOfferDiscountType = "offerDiscountType"
        case appTransactionId
        case offerPeriod
        case rawBillingPlanType = "billingPlanType"
        case commitmentInfo
    }
}
