/// How a product's refund requests are answered (`refundPolicy` in the catalog): what
/// Storekeeper tells Apple in Send Consumption Information when a `CONSUMPTION_REQUEST`
/// arrives and the app's backend recorded nothing more precise with `set-consumption`.
///
/// `rules` are tried in order; the first that matches gives the refund preference, else
/// `refundPreference` does (nil: no preference, the field is left out).
///
/// [ConsumptionRequest](https://developer.apple.com/documentation/appstoreserverapi/consumptionrequest)
public struct CatalogRefundPolicy: Sendable, Equatable {
    /// Whether a free sample, trial or a description of the content was given before the purchase.
    public var sampleContentProvided: Bool
    /// The preference when no rule matches; nil: none.
    public var refundPreference: RefundPreference?
    /// Sent when the backend recorded no consumption for the transaction (0...100000,
    /// milliunits); never for an auto-renewable subscription, whose consumption Apple computes.
    public var consumptionPercentage: Int32?
    public var rules: [Rule]

    /// One rule: every condition it states must hold (at least one is stated).
    public struct Rule: Sendable, Equatable {
        /// Holds when at least this many whole days passed from the purchase to the request.
        public var afterDaysOfUse: Int?
        /// Holds when the customer's reason (`consumptionRequestReason`) is one of these.
        public var reasons: Set<ConsumptionRequestReason>?
        public var refundPreference: RefundPreference

        public init(afterDaysOfUse: Int? = nil, reasons: Set<ConsumptionRequestReason>? = nil, refundPreference: RefundPreference) {
            self.afterDaysOfUse = afterDaysOfUse
            self.reasons = reasons
            self.refundPreference = refundPreference
        }

        func matches(daysOfUse: Int64?, reason: ConsumptionRequestReason?) -> Bool {
            if let afterDaysOfUse {
                guard let daysOfUse, daysOfUse >= Int64(afterDaysOfUse) else { return false }
            }
            if let reasons {
                guard let reason, reasons.contains(reason) else { return false }
            }
            return true
        }
    }

    /// A product without a policy: no sample, no preference, no consumption of its own.
    public static let none = CatalogRefundPolicy()

    public init(sampleContentProvided: Bool = false, refundPreference: RefundPreference? = nil,
                consumptionPercentage: Int32? = nil, rules: [Rule] = []) {
        self.sampleContentProvided = sampleContentProvided
        self.refundPreference = refundPreference
        self.consumptionPercentage = consumptionPercentage
        self.rules = rules
    }

    /// The preference for a request made `daysOfUse` whole days after the purchase (nil when
    /// the purchase date is unknown: a rule on days does not match) for `reason`.
    public func refundPreference(daysOfUse: Int64?, reason: ConsumptionRequestReason?) -> RefundPreference? {
        rules.first { $0.matches(daysOfUse: daysOfUse, reason: reason) }?.refundPreference ?? refundPreference
    }
}
