/// One entry of the catalog's `products`.
extension CatalogProduct {
    static let keys = ["bundleId", "type", "durationDays", "entitlements", "subscriptionGroupIdentifier", "refundPolicy"]
    /// A hundred years: longer is a typo, and the end date must stay far from overflowing.
    static let maximumDurationDays: Int64 = 36_500

    static func parse(_ productId: String, _ field: CatalogField, apps: [CatalogApp],
                      entitlements declared: [String: CatalogEntitlement]) throws(CatalogError) -> CatalogProduct {
        guard !productId.isEmpty else { throw field.error(.invalidValue, "a product needs its product id") }
        let keys = try field.members(allowing: Self.keys)
        let bundleId = try app(of: field, keys["bundleId"], apps: apps)
        var type: ProductType?
        if let typeField = keys["type"] {
            let name = try typeField.string()
            guard let known = ProductType(rawValue: name) else {
                throw typeField.error(.unknownProductType, "unknown product type \"\(name)\"; use \(ProductType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            type = known
        }
        var durationDays: Int?
        if let duration = keys["durationDays"] {
            guard type == .nonRenewingSubscription else {
                throw duration.error(.durationNotAllowed, "only a product of type NonRenewingSubscription has a duration")
            }
            durationDays = Int(try duration.integer(in: 1...maximumDurationDays))
        }
        let group = try subscriptionGroup(keys["subscriptionGroupIdentifier"], type: type)
        var granted: [String] = []
        if let list = keys["entitlements"] {
            granted = try list.strings()
            for (index, name) in granted.enumerated() where declared[name] == nil {
                throw CatalogError(.undeclaredEntitlement, field: "\(list.path)[\(index)]",
                                   "\"\(name)\" is not declared in entitlements")
            }
            if type == .consumable, !granted.isEmpty {
                throw list.error(.invalidValue, "a Consumable grants nothing (it is listed as a purchase)")
            }
        }
        let refundPolicy = try keys["refundPolicy"].map { (policy) throws(CatalogError) in try CatalogRefundPolicy.parse(policy, type: type) }
        return CatalogProduct(productId: productId, bundleId: bundleId, type: type, durationDays: durationDays,
                              entitlements: granted, subscriptionGroupIdentifier: group, refundPolicy: refundPolicy)
    }

    /// Only an auto-renewable subscription (or a product of the type Apple signs) has a group.
    private static func subscriptionGroup(_ field: CatalogField?, type: ProductType?) throws(CatalogError) -> String? {
        guard let field else { return nil }
        guard type == nil || type == .autoRenewable else {
            throw field.error(.invalidValue, "only an AutoRenewable product belongs to a subscription group")
        }
        let group = try field.string()
        guard !group.isEmpty, group.count <= 64 else { throw field.error(.invalidValue, "must be 1 to 64 characters") }
        return group
    }

    /// The app a product names, or the only one.
    private static func app(of product: CatalogField, _ field: CatalogField?, apps: [CatalogApp]) throws(CatalogError) -> String {
        guard let field else {
            guard apps.count == 1 else {
                throw product.error(.bundleIdRequired, "the catalog has several apps: name this product's with bundleId")
            }
            return apps[0].bundleId
        }
        let bundleId = try field.string()
        guard apps.contains(where: { $0.bundleId == bundleId }) else {
            throw field.error(.unknownApp, "\(bundleId) is not among the catalog's apps (\(apps.map(\.bundleId).joined(separator: ", ")))")
        }
        return bundleId
    }
}
