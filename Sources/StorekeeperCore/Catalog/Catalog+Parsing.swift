/// Reading the catalog file: strict JSON (no duplicate keys), then each section by its own
/// function, then the checks that span sections. Every mistake is a `CatalogError` naming
/// its field; nothing is defaulted silently but what the README says is a default.
extension Catalog {
    /// The sections a catalog may have, each read by its own function below. Later sections
    /// (webhooks, refund policy, retention rules) are one more name here and one more reader.
    static let sections = ["apps", "entitlements", "products", "webhooks"]
    /// Sections whose keys are names the developer chose (a product id, an entitlement),
    /// which a field path writes in brackets.
    static let namedSections: Set<String> = ["entitlements", "products"]

    /// The catalog `bytes` describe, or the first mistake in them.
    public static func parse(_ bytes: [UInt8]) throws(CatalogError) -> Catalog {
        let document: StrictJSON
        do {
            document = try StrictJSON.parse(bytes)
        } catch {
            throw notJSON(error)
        }
        let sections = try CatalogField(document: document).members(allowing: Self.sections)
        guard let appsField = sections["apps"] else {
            throw CatalogError(.missing, field: "apps", "is required: the catalog names at least one app")
        }
        let apps = try CatalogApp.parseList(appsField)
        var entitlements: [String: CatalogEntitlement] = [:]
        if let field = sections["entitlements"] { entitlements = try parseEntitlements(field) }
        var products: [String: CatalogProduct] = [:]
        if let field = sections["products"] {
            for (productId, entry) in try field.namedEntries() {
                products[productId] = try CatalogProduct.parse(productId, entry, apps: apps, entitlements: entitlements)
            }
        }
        let webhooks = try sections["webhooks"].map(CatalogWebhook.parseList) ?? []
        let catalog = Catalog(apps: apps, entitlements: entitlements, products: products, webhooks: webhooks)
        try catalog.checkEveryEntitlementIsGranted()
        try catalog.checkRetentionRules()
        return catalog
    }

    private static func parseEntitlements(_ field: CatalogField) throws(CatalogError) -> [String: CatalogEntitlement] {
        var entitlements: [String: CatalogEntitlement] = [:]
        for (name, entry) in try field.namedEntries() {
            guard !name.isEmpty else { throw entry.error(.invalidValue, "an entitlement needs a name") }
            let keys = try entry.members(allowing: ["description"])
            entitlements[name] = CatalogEntitlement(description: try keys["description"]?.string())
        }
        return entitlements
    }

    /// An entitlement no product grants is a name nobody can ever have: a typo on one side.
    private func checkEveryEntitlementIsGranted() throws(CatalogError) {
        let granted = Set(products.values.flatMap(\.entitlements))
        for name in entitlements.keys.sorted() where !granted.contains(name) {
            throw CatalogError(.entitlementNotGranted, field: CatalogField.keyPath("entitlements", name),
                               "no product grants it")
        }
    }

    /// A text that is not strict JSON, named by where it failed; a key given twice is
    /// refused like any other mistake (a product listed twice would be in two apps).
    private static func notJSON(_ error: StrictJSON.FormatError) -> CatalogError {
        let field = path(of: error.path)
        guard error.duplicateName != nil else {
            return CatalogError(.notJSON, field: field, "not strict JSON: \(error)")
        }
        if case .member("products") = error.path.first, error.path.count == 2 {
            return CatalogError(.productInTwoApps, field: field, "is listed twice: a product belongs to one app")
        }
        return CatalogError(.notJSON, field: field, "is given twice")
    }

    /// `products["com.x"].type` from the steps a parser took.
    static func path(of components: [StrictJSON.PathComponent]) -> String {
        var path = ""
        for (depth, component) in components.enumerated() {
            switch component {
            case .index(let index):
                path += "[\(index)]"
            case .member(let name):
                if depth == 1, case .member(let section) = components[0], namedSections.contains(section) {
                    path = CatalogField.keyPath(path, name)
                } else {
                    path = CatalogField.memberPath(path, name)
                }
            }
        }
        return path
    }
}
