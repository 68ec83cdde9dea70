/// What the metrics count of one auto-renewable subscription, as the last event that showed it
/// left it: derived from the subscription in the event's `customer` (get-customer's shape), so
/// the aggregator counts transitions (the state before against the state after) rather than
/// rereading every record.
public struct MetricsSubscriptionState: Codable, Sendable, Equatable {
    public var productId: String?
    /// The catalog's entitlements of the product, sorted.
    public var entitlements: [String]
    /// nil: not counted (expired, refunded, revoked).
    public var status: MetricsStatus?
    /// The latest period is a free trial (whatever the status).
    public var trial: Bool
    /// Its contribution to the monthly recurring revenue estimate; nil while it brings none.
    public var monthly: MonthlyPrice?

    public init(productId: String?, entitlements: [String], status: MetricsStatus?, trial: Bool, monthly: MonthlyPrice?) {
        self.productId = productId
        self.entitlements = entitlements
        self.status = status
        self.trial = trial
        self.monthly = monthly
    }

    /// Gives access now: counted as an active subscription.
    public var live: Bool { status?.isLive ?? false }
}

/// Where a counted subscription stands, one value per subscription (the values never overlap,
/// so their sum is every subscription counted).
public enum MetricsStatus: String, Codable, Sendable, CaseIterable {
    /// Paid period, renews.
    case active
    /// A free trial that renews into a paid period.
    case trial
    /// Still active (paid or trial) but will not renew.
    case autoRenewOff = "auto_renew_off"
    /// Renewal failed; Apple's billing grace period still grants access.
    case gracePeriod = "grace_period"
    /// Renewal failed and Apple is retrying; no access.
    case billingRetry = "billing_retry"

    public var isLive: Bool { self != .billingRetry }
}

/// A price per month in one currency, in Apple's milliunits (10990 is 10.99).
public struct MonthlyPrice: Codable, Sendable, Equatable {
    public var currency: String
    public var milliunits: Int64

    public init(currency: String, milliunits: Int64) {
        self.currency = currency
        self.milliunits = milliunits
    }
}

/// One subscription's last counted state, kept under its own key
/// (`StoreKeys.metricsSubscription`), with the event sequence that made it.
public struct MetricsSubscriptionRecord: StoreRecord, Sendable, Equatable {
    public var sequence: Int64
    public var state: MetricsSubscriptionState

    public init(sequence: Int64, state: MetricsSubscriptionState) {
        self.sequence = sequence
        self.state = state
    }
}
