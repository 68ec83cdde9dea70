import FoundationEssentials

/// Reading an app's `retention` section. Its own shape is checked here; what it says of
/// products (each must be a subscription of this app) once the products are read
/// (`Catalog.checkRetentionRules`).
extension CatalogRetention {
    static let keys = ["default", "timeBudgetMilliseconds", "rules"]
    static let ruleKeys = ["name", "products", "locales", "subscribedDaysAtLeast", "subscribedDaysAtMost", "offerRedeemed"]
        + answerKeys
    static let answerKeys = ["message", "alternateProduct", "promotionalOffer"]
    /// Apple waits well under a second; longer than this could never be answered in time.
    static let timeBudgetRange: ClosedRange<Int64> = 1...5_000

    static func parse(_ field: CatalogField) throws(CatalogError) -> CatalogRetention {
        let keys = try field.members(allowing: Self.keys)
        guard let defaultField = keys["default"] else {
            throw CatalogError(.missing, field: CatalogField.memberPath(field.path, "default"),
                               "is required: the message answered whenever no rule can answer")
        }
        let defaultKeys = try defaultField.members(allowing: ["messageIdentifier"])
        let budget = try keys["timeBudgetMilliseconds"]?.integer(in: timeBudgetRange) ?? defaultTimeBudgetMilliseconds
        var rules: [Rule] = []
        for element in try keys["rules"]?.elements() ?? [] {
            let rule = try parseRule(element)
            if rules.contains(where: { $0.name == rule.name }) {
                throw CatalogError(.invalidValue, field: CatalogField.memberPath(element.path, "name"), "\"\(rule.name)\" names two rules")
            }
            rules.append(rule)
        }
        return CatalogRetention(defaultMessageIdentifier: try messageIdentifier(defaultKeys["messageIdentifier"], in: defaultField),
                                timeBudgetMilliseconds: budget, rules: rules)
    }

    private static func parseRule(_ field: CatalogField) throws(CatalogError) -> Rule {
        let keys = try field.members(allowing: ruleKeys)
        guard let nameField = keys["name"] else {
            throw CatalogError(.missing, field: CatalogField.memberPath(field.path, "name"), "is required (it names the rule in the log)")
        }
        let days = 0...Int64(36_500)
        let history = HistoryConditions(subscribedDaysAtLeast: try keys["subscribedDaysAtLeast"]?.integer(in: days),
                                        subscribedDaysAtMost: try keys["subscribedDaysAtMost"]?.integer(in: days),
                                        offerRedeemed: try keys["offerRedeemed"]?.bool())
        if let least = history.subscribedDaysAtLeast, let most = history.subscribedDaysAtMost, least > most {
            throw field.error(.invalidValue, "subscribedDaysAtLeast \(least) is above subscribedDaysAtMost \(most): the rule never applies")
        }
        return Rule(name: try nameField.string(), products: try nonEmpty(keys["products"]), locales: try nonEmpty(keys["locales"]),
                    history: history, answer: try answer(keys, in: field))
    }

    private static func nonEmpty(_ field: CatalogField?) throws(CatalogError) -> [String]? {
        guard let field else { return nil }
        let list = try field.strings()
        guard !list.isEmpty else { throw field.error(.invalidValue, "lists nothing: leave it out to match any") }
        return list
    }

    /// Exactly one of `message`, `alternateProduct`, `promotionalOffer`.
    private static func answer(_ keys: [String: CatalogField], in rule: CatalogField) throws(CatalogError) -> Answer {
        let given = answerKeys.filter { keys[$0] != nil }
        guard given.count == 1, let kind = given.first, let field = keys[kind] else {
            throw rule.error(.invalidValue, "needs exactly one answer: \(answerKeys.joined(separator: ", "))")
        }
        switch kind {
        case "message":
            let members = try field.members(allowing: ["messageIdentifier"])
            return .message(messageIdentifier: try messageIdentifier(members["messageIdentifier"], in: field))
        case "alternateProduct":
            let members = try field.members(allowing: ["messageIdentifier", "productId"])
            guard let product = members["productId"] else {
                throw CatalogError(.missing, field: CatalogField.memberPath(field.path, "productId"), "is required")
            }
            return .alternateProduct(messageIdentifier: try messageIdentifier(members["messageIdentifier"], in: field),
                                     productId: try product.string())
        default:
            let members = try field.members(allowing: ["messageIdentifier", "offerId", "signature"])
            guard let offer = members["offerId"] else {
                throw CatalogError(.missing, field: CatalogField.memberPath(field.path, "offerId"), "is required")
            }
            var version = OfferSignatureVersion.v2
            if let signature = members["signature"] {
                guard let known = OfferSignatureVersion(rawValue: try signature.string()) else {
                    throw signature.error(.invalidValue, "must be V2 (the JWS) or V1 (the original signature)")
                }
                version = known
            }
            return .promotionalOffer(messageIdentifier: try messageIdentifier(members["messageIdentifier"], in: field),
                                     offerId: try offerId(offer), signature: version)
        }
    }

    /// A message's identifier is the UUID it was uploaded under; answered lowercase.
    private static func messageIdentifier(_ field: CatalogField?, in parent: CatalogField) throws(CatalogError) -> String {
        guard let field else {
            throw CatalogError(.missing, field: CatalogField.memberPath(parent.path, "messageIdentifier"), "is required")
        }
        guard let uuid = UUID(uuidString: try field.string()) else {
            throw field.error(.invalidValue, "must be the UUID the message was uploaded under")
        }
        return uuid.uuidString.lowercased()
    }

    /// An offer identifier goes into the signed message: no separator, space or control character.
    private static func offerId(_ field: CatalogField) throws(CatalogError) -> String {
        let id = try field.string()
        guard id.utf8.count <= 255, id.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0.value != 0x2063 }) else {
            throw field.error(.invalidValue, "must be the offer's identifier: up to 255 bytes, no spaces or control characters")
        }
        return id
    }
}

extension Catalog {
    /// Each product a rule names must be an auto-renewable subscription of the rule's app
    /// (when the catalog lists products), and a switch-plan option one of the same group
    /// when both groups are known.
    func checkRetentionRules() throws(CatalogError) {
        for (appIndex, app) in apps.enumerated() {
            guard let retention = app.retention else { continue }
            for (ruleIndex, rule) in retention.rules.enumerated() {
                let path = "apps[\(appIndex)].retention.rules[\(ruleIndex)]"
                for (index, productId) in (rule.products ?? []).enumerated() {
                    try checkSubscription(productId, of: app, field: "\(path).products[\(index)]")
                }
                if case .alternateProduct(_, let productId) = rule.answer {
                    let field = "\(path).alternateProduct.productId"
                    try checkSubscription(productId, of: app, field: field)
                    let target = products[productId]?.subscriptionGroupIdentifier
                    for source in rule.products ?? [] {
                        if let group = products[source]?.subscriptionGroupIdentifier, let target, group != target {
                            throw CatalogError(.invalidValue, field: field, "\(productId) is not in \(source)'s subscription group")
                        }
                    }
                }
            }
        }
    }

    private func checkSubscription(_ productId: String, of app: CatalogApp, field: String) throws(CatalogError) {
        guard !productsImplied, !products.isEmpty else { return }
        guard let product = products[productId] else {
            throw CatalogError(.invalidValue, field: field, "\(productId) is not in products")
        }
        guard product.bundleId == app.bundleId else {
            throw CatalogError(.invalidValue, field: field, "\(productId) is \(product.bundleId)'s, not \(app.bundleId)'s")
        }
        guard product.type == nil || product.type == .autoRenewable else {
            throw CatalogError(.invalidValue, field: field, "\(productId) is not an auto-renewable subscription")
        }
    }
}
