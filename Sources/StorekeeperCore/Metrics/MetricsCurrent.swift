/// The "now" figures of one app and environment: every counted subscription's last state
/// added in, kept exact by adding each transition (the old state out, the new one in).
public struct MetricsCurrent: Codable, Sendable, Equatable {
    /// Active subscriptions (giving access) by product id.
    public var products: [String: Int] = [:]
    /// Subscriptions by status (`MetricsStatus`), billing retry included.
    public var statuses: [String: Int] = [:]
    /// Subscriptions by entitlement, then status.
    public var entitlements: [String: [String: Int]] = [:]
    /// The monthly recurring revenue estimate by currency, in milliunits.
    public var monthlyMilliunits: [String: Int64] = [:]

    public init() {}

    /// Active subscriptions: those of every status but billing retry.
    public var active: Int {
        statuses.filter { MetricsStatus(rawValue: $0.key)?.isLive ?? false }.values.reduce(0, +)
    }

    /// Adds (`sign` 1) or removes (-1) one subscription's state; counts that reach zero go.
    mutating func add(_ state: MetricsSubscriptionState, sign: Int) {
        guard let status = state.status else { return }
        Self.bump(&statuses, status.rawValue, by: sign)
        for entitlement in state.entitlements {
            var byStatus = entitlements[entitlement] ?? [:]
            Self.bump(&byStatus, status.rawValue, by: sign)
            entitlements[entitlement] = byStatus.isEmpty ? nil : byStatus
        }
        if status.isLive, let product = state.productId { Self.bump(&products, product, by: sign) }
        if let monthly = state.monthly {
            let total = (monthlyMilliunits[monthly.currency] ?? 0) + Int64(sign) * monthly.milliunits
            monthlyMilliunits[monthly.currency] = total == 0 ? nil : total
        }
    }

    static func bump(_ counts: inout [String: Int], _ key: String, by delta: Int) {
        let total = (counts[key] ?? 0) + delta
        counts[key] = total == 0 ? nil : total
    }
}
