/// A product's `refundPolicy`, read strictly like the rest of the catalog.
extension CatalogRefundPolicy {
    static let keys = ["sampleContentProvided", "refundPreference", "consumptionPercentage", "rules"]
    static let ruleKeys = ["afterDaysOfUse", "reasons", "refundPreference"]
    /// Ten years of use: a larger number is a typo.
    static let maximumDays: Int64 = 3_650

    static func parse(_ field: CatalogField, type: ProductType?) throws(CatalogError) -> CatalogRefundPolicy {
        let keys = try field.members(allowing: Self.keys)
        var policy = CatalogRefundPolicy()
        if let sample = keys["sampleContentProvided"] { policy.sampleContentProvided = try sample.bool() }
        if let preference = keys["refundPreference"] { policy.refundPreference = try Self.preference(preference) }
        if let percentage = keys["consumptionPercentage"] {
            guard type != .autoRenewable else {
                throw percentage.error(.invalidValue, "Apple computes the consumption of an AutoRenewable subscription: leave it out")
            }
            policy.consumptionPercentage = Int32(try percentage.integer(in: 0...100_000))
        }
        if let rules = keys["rules"] {
            policy.rules = try rules.elements().map { (rule) throws(CatalogError) in try Self.rule(rule) }
        }
        return policy
    }

    private static func rule(_ field: CatalogField) throws(CatalogError) -> Rule {
        let keys = try field.members(allowing: ruleKeys)
        guard let preference = keys["refundPreference"] else {
            throw field.error(.missing, "a rule needs its refundPreference (\(RefundPreference.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        var rule = Rule(refundPreference: try Self.preference(preference))
        if let days = keys["afterDaysOfUse"] { rule.afterDaysOfUse = Int(try days.integer(in: 0...maximumDays)) }
        if let reasons = keys["reasons"] {
            var set: Set<ConsumptionRequestReason> = []
            for (index, name) in try reasons.strings().enumerated() {
                guard let reason = ConsumptionRequestReason(rawValue: name) else {
                    throw CatalogError(.invalidValue, field: "\(reasons.path)[\(index)]",
                                       "\"\(name)\" is not one of Apple's reasons (\(ConsumptionRequestReason.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                set.insert(reason)
            }
            guard !set.isEmpty else { throw reasons.error(.invalidValue, "must name at least one reason") }
            rule.reasons = set
        }
        guard rule.afterDaysOfUse != nil || rule.reasons != nil else {
            throw field.error(.missing, "a rule needs a condition: afterDaysOfUse, reasons or both")
        }
        return rule
    }

    private static func preference(_ field: CatalogField) throws(CatalogError) -> RefundPreference {
        let name = try field.string()
        guard let preference = RefundPreference(rawValue: name) else {
            throw field.error(.invalidValue, "\"\(name)\" is not one of Apple's values (\(RefundPreference.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return preference
    }
}
