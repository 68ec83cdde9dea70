/// What the aggregator counts as it happens, per day and in total: the "over time" figures.
public enum MetricsFlow: String, Codable, Sendable, CaseIterable {
    /// INITIAL_PURCHASE events.
    case newPurchase = "new_purchase"
    /// RENEWAL events.
    case renewal
    /// EXPIRATION events.
    case expiration
    /// REFUND events.
    case refund
    /// REFUND_REVERSED events.
    case refundReversed = "refund_reversed"
    /// CONSUMPTION_REQUEST: Apple asks for consumption data about a refund request.
    case refundRequest = "refund_request"
    /// REFUND_DECLINED: the other outcome of a refund request.
    case refundDeclined = "refund_declined"
    /// A subscription that gave access no longer does (expired, refunded, revoked, billing retry).
    case churn
    /// A subscription whose latest period was a free trial now in a paid period.
    case trialConversion = "trial_conversion"
    /// Subscriptions that became active minus those that stopped being: the day's net change,
    /// from which a reader rebuilds the active count of each past day from today's.
    case activeChange = "active_change"

    /// The flow an event of this type counts, when it counts one by its type alone.
    static func of(eventType: String) -> MetricsFlow? {
        switch EventType(rawValue: eventType) {
        case .initialPurchase: .newPurchase
        case .renewal: .renewal
        case .expiration: .expiration
        case .refund: .refund
        case .refundReversed: .refundReversed
        case .consumptionRequest: .refundRequest
        case .refundDeclined: .refundDeclined
        default: nil
        }
    }
}
