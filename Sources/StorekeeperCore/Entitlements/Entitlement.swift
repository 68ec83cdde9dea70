import FoundationEssentials

/// One entitlement as `get-entitlements` answers it: what was bought, where it stands now,
/// and the one answer an app needs, `active`.
public struct Entitlement: Codable, Sendable, Equatable {
    public var originalTransactionId: String
    public var productId: String?
    public var productType: String?
    /// The status now: the stored status, moved on by the clock when a period or grace
    /// period has ended since Apple last said anything (reconciliation will confirm it).
    public var status: EntitlementStatus
    /// Whether paid features are on now.
    public var active: Bool
    public var expiresDate: Int64?
    public var gracePeriodExpiresDate: Int64?
    public var autoRenew: Bool?
    public var autoRenewProductId: String?
    public var environment: String?
    /// PURCHASED or FAMILY_SHARED.
    public var ownership: String?
    public var appAccountToken: String?
    public var latestTransactionId: String?
    public var lastEvent: EventSummary
    /// Past periods Apple refunded or revoked (the current one shows in `status`).
    public var revokedTransactionIds: [String]
    /// Apple's own answer when `reconcile` last asked (kept 8 hours): what Apple confirmed
    /// and when, so a caller can tell a fresh confirmation from state built from notifications.
    public var confirmedByApple: AppleStatusSnapshot?

    /// With `catalog`, decided as the customer answer decides a purchase (`CustomerPurchase`):
    /// a non-renewing subscription ends `durationDays` after its purchase, and a sandbox
    /// purchase is active only when its app's `sandboxGrants` allows. Without one (or with the
    /// one-app catalog of the `APPSTORE_*` variables), the answer of the record alone.
    public init(_ record: EntitlementRecord, now: Date, catalog: Catalog? = nil, bundleId: String? = nil) {
        let latest = record.latestTransaction
        let nowMilliseconds = now.millisecondsSince1970
        let purchase = catalog.flatMap { CustomerPurchase(record, storedUnder: bundleId, catalog: $0, now: nowMilliseconds) }
        let status = purchase?.status ?? record.status(at: nowMilliseconds)
        originalTransactionId = record.originalTransactionId
        productId = latest?.productId
        productType = latest?.rawType
        self.status = status
        active = purchase?.active ?? status.grantsAccess
        expiresDate = purchase?.expiresDate ?? latest?.expiresDate
        gracePeriodExpiresDate = record.gracePeriodEnd
        autoRenew = record.renewal?.autoRenewStatus.map { $0 == 1 }
        autoRenewProductId = record.renewal?.autoRenewProductId
        environment = latest?.rawEnvironment
        ownership = latest?.rawInAppOwnershipType
        appAccountToken = latest?.appAccountToken
        latestTransactionId = latest?.transactionId
        lastEvent = record.lastEvent
        confirmedByApple = record.confirmedByApple.flatMap { snapshot in
            nowMilliseconds - snapshot.askedAt < AppleStatusSnapshot.lifetime.wholeMilliseconds ? snapshot : nil
        }
        revokedTransactionIds = record.transactions.values
            .filter { $0.revocationDate != nil && $0.transactionId != latest?.transactionId }
            .map(\.transactionId).sorted()
    }
}
