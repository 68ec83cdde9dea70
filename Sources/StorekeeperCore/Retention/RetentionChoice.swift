/// Chooses the answer to one realtime request from an app's retention rules. Pure: the
/// customer's history comes from a closure, read at most once and only when a rule that
/// matches the product and locale asks about it; the time budget is a closure checked before
/// each step that could take time.
///
/// The first rule whose product, locale and history conditions all hold answers. Whatever
/// keeps the rules from being evaluated (no record of the subscription, a record without the
/// date a condition needs, a store failure, the budget spent) answers the default message:
/// a later rule was written for customers the earlier ones did not catch, so skipping to it
/// on missing facts would answer a guess.
public struct RetentionChoice: Sendable {
    public let retention: CatalogRetention

    public init(retention: CatalogRetention) {
        self.retention = retention
    }

    /// Why the default message answered.
    public enum Fallback: String, Sendable, Equatable {
        case noRuleMatched = "no_rule_matched"
        case ruleUnevaluable = "rule_unevaluable"
        case storeUnavailable = "store_unavailable"
        case timeBudgetExceeded = "time_budget_exceeded"
        case offerKeyMissing = "offer_key_missing"
        case signingFailed = "signing_failed"
    }

    /// The answer chosen: a rule's, or the default with the reason.
    public struct Decision: Sendable, Equatable {
        public var answer: CatalogRetention.Answer
        /// The rule that answered; nil for the default.
        public var rule: String?
        public var fallback: Fallback?
        /// Why, for the log (which condition could not be read, what the store said).
        public var detail: String?
    }

    /// The default message, for `reason`.
    public func fallback(_ reason: Fallback, detail: String? = nil) -> Decision {
        Decision(answer: .message(messageIdentifier: retention.defaultMessageIdentifier), rule: nil, fallback: reason, detail: detail)
    }

    public func decide(_ request: DecodedRealtimeRequestBody, history readHistory: () -> RetentionHistory.Lookup,
                       overBudget: () -> Bool) -> Decision {
        var lookup: RetentionHistory.Lookup?
        for rule in retention.rules where applies(rule, to: request) {
            guard !rule.history.isEmpty else { return Decision(answer: rule.answer, rule: rule.name) }
            if lookup == nil {
                if overBudget() { return fallback(.timeBudgetExceeded, detail: "before reading the customer") }
                lookup = readHistory()
            }
            switch lookup {
            case .found(let history)?:
                switch Self.holds(rule.history, history, at: request.signedDate) {
                case true?: return Decision(answer: rule.answer, rule: rule.name)
                case false?: continue
                case nil: return fallback(.ruleUnevaluable, detail: "\(rule.name): the record has no purchase date")
                }
            case .notFound?:
                return fallback(.ruleUnevaluable, detail: "\(rule.name): no record of the subscription")
            case .storeFailed(let reason)?:
                return fallback(.storeUnavailable, detail: reason)
            case nil:
                continue
            }
        }
        return fallback(.noRuleMatched)
    }

    /// Product and locale, from the request alone.
    func applies(_ rule: CatalogRetention.Rule, to request: DecodedRealtimeRequestBody) -> Bool {
        if let products = rule.products, !products.contains(request.productId) { return false }
        if let locales = rule.locales, !locales.contains(where: { Self.locale(request.userLocale, matches: $0) }) { return false }
        return true
    }

    /// `en-US` matches `en-US`, `en_US` and `en`; case aside.
    static func locale(_ locale: String, matches wanted: String) -> Bool {
        let given = locale.lowercased().replacing("_", with: "-")
        let target = wanted.lowercased().replacing("_", with: "-")
        return given == target || given.hasPrefix(target + "-")
    }

    /// Nil when a condition needs a date the record lacks.
    static func holds(_ conditions: CatalogRetention.HistoryConditions, _ history: RetentionHistory, at instant: Int64) -> Bool? {
        if let wanted = conditions.offerRedeemed, history.offerRedeemed != wanted { return false }
        guard conditions.subscribedDaysAtLeast != nil || conditions.subscribedDaysAtMost != nil else { return true }
        guard let days = history.subscribedDays(at: instant) else { return nil }
        if let least = conditions.subscribedDaysAtLeast, days < least { return false }
        if let most = conditions.subscribedDaysAtMost, days > most { return false }
        return true
    }
}
