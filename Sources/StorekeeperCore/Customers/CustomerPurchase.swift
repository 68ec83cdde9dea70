/// One purchase (one stored subscription or non-subscription record) as the customer answer
/// sees it at `now`, with the catalog: what it is, where it stands, whether it gives its
/// entitlements. Every part of the answer (entitlements, subscriptions, nonSubscriptions)
/// reads purchases through this one evaluation.
struct CustomerPurchase {
    static let millisecondsPerDay: Int64 = 86_400_000

    let record: EntitlementRecord
    /// The transaction of the latest period: the one the purchase's state follows.
    let latest: TransactionFacts
    let bundleId: String?
    /// The catalog's type, else the one Apple signed.
    let type: TransactionType?
    let status: EntitlementStatus
    /// Apple's expiry, or for a non-renewing subscription its purchase plus the catalog's duration.
    let expiresDate: Int64?
    /// A non-renewing subscription the catalog gives no duration: it stays active.
    let durationUnknown: Bool
    /// Its status grants access and its app lets purchases of its environment grant
    /// (`sandboxGrants`).
    let active: Bool
    let entitlements: [String]

    init?(_ record: EntitlementRecord, storedUnder storedBundleId: String? = nil, catalog: Catalog, now: Int64) {
        guard let latest = record.latestTransaction else { return nil }
        self.record = record
        self.latest = latest
        let product = latest.productId.flatMap(catalog.product)
        let app = Self.app(of: latest, storedUnder: storedBundleId, in: catalog)
        bundleId = storedBundleId ?? latest.bundleId ?? app?.bundleId
        type = product?.type?.transactionType ?? latest.type
        let duration = product?.durationDays.map { Int64($0) * Self.millisecondsPerDay }
        status = record.status(at: now, nonRenewingDuration: duration)
        expiresDate = EntitlementRecord.expiresDate(of: latest, nonRenewingDuration: duration)
        durationUnknown = type == .nonRenewingSubscription && expiresDate == nil
        active = status.grantsAccess && (app?.grants(in: latest.environment) ?? true)
        entitlements = type == .consumable ? [] : product?.entitlements ?? []
    }

    /// The app a purchase belongs to: the one it is stored under, or its bundle id names; for
    /// a record of unknown app, the only app.
    static func app(of transaction: TransactionFacts, storedUnder storedBundleId: String?, in catalog: Catalog) -> CatalogApp? {
        if let bundleId = storedBundleId ?? transaction.bundleId { return catalog.app(bundleId: bundleId) }
        return catalog.apps.count == 1 ? catalog.apps.first : nil
    }

    var isSubscription: Bool { type == .autoRenewableSubscription || type == nil }

    /// How the latest period was priced: a free trial, an introductory price, an offer.
    var periodType: PeriodType { PeriodType(latest) }

    /// Whether it renews: only an auto-renewable subscription still running or being retried,
    /// and for a plan with a commitment as the commitment says.
    var willRenew: Bool {
        guard isSubscription, [.active, .grace, .billingRetry].contains(status) else { return false }
        return record.renewal?.willRenew ?? false
    }

    var isFamilyShare: Bool { latest.inAppOwnershipType == .familyShared }

    /// Why it does not give access, or nil while it does.
    var expirationReason: String? {
        switch status {
        case .active, .grace, .lifetime: return active ? nil : "sandbox_not_granting"
        case .refunded: return "refunded"
        case .revoked: return "revoked"
        case .billingRetry: return "billing_error"
        case .expired:
            return record.renewal?.expirationIntent.flatMap(ExpirationIntent.init(rawValue:)).map(Self.reason) ?? "expired"
        }
    }

    private static func reason(_ intent: ExpirationIntent) -> String {
        switch intent {
        case .customerCancelled: "customer_cancelled"
        case .billingError: "billing_error"
        case .customerDidNotConsentToPriceIncrease: "price_increase_declined"
        case .productNotAvailable: "product_not_available"
        case .other: "other"
        }
    }
}

/// How a period was priced, from Apple's `offerType` and `offerDiscountType`.
public enum PeriodType: String, Sendable, Encodable, CaseIterable {
    case normal, trial, intro, promotional
    case offerCode = "offer_code"
    case winBack = "win_back"

    init(_ transaction: TransactionFacts) {
        switch transaction.offerType {
        case .introductoryOffer: self = transaction.offerDiscountType == .freeTrial ? .trial : .intro
        case .promotionalOffer: self = .promotional
        case .offerCode: self = .offerCode
        case .winBackOffer: self = .winBack
        case nil: self = .normal
        }
    }
}
