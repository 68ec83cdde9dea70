/// One entry of the catalog's `apps`.
extension CatalogApp {
    static let keys = ["bundleId", "appAppleId", "environments", "sandboxGrants", "transfer", "retention"]
    /// What an app accepts when its entry lists no environments (APPSTORE_ENVIRONMENT's default).
    public static let defaultEnvironments: Set<Environment> = [.production, .sandbox]

    /// Apple's rule for a bundle id: letters, digits, hyphens and periods. Store keys and
    /// subscription references are built from it, so nothing else may reach them.
    public static func isValidBundleId(_ bundleId: String) -> Bool {
        !bundleId.isEmpty && bundleId.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }

    /// The apps, at least one, no bundle id or App Apple ID twice.
    static func parseList(_ field: CatalogField) throws(CatalogError) -> [CatalogApp] {
        let elements = try field.elements()
        guard !elements.isEmpty else { throw field.error(.missing, "names no app; the catalog needs at least one") }
        var apps: [CatalogApp] = []
        for element in elements {
            let app = try parse(element)
            if let other = apps.firstIndex(where: { $0.bundleId == app.bundleId }) {
                throw CatalogError(.duplicateApp, field: CatalogField.memberPath(element.path, "bundleId"),
                                   "\(app.bundleId) is already \(field.path)[\(other)]")
            }
            if let id = app.appAppleId, let other = apps.firstIndex(where: { $0.appAppleId == id }) {
                throw CatalogError(.duplicateApp, field: CatalogField.memberPath(element.path, "appAppleId"),
                                   "\(id) is already \(field.path)[\(other)]'s")
            }
            apps.append(app)
        }
        return apps
    }

    static func parse(_ field: CatalogField) throws(CatalogError) -> CatalogApp {
        let keys = try field.members(allowing: Self.keys)
        guard let bundleField = keys["bundleId"] else {
            throw CatalogError(.missing, field: CatalogField.memberPath(field.path, "bundleId"), "is required")
        }
        let bundleId = try bundleField.string()
        guard isValidBundleId(bundleId) else {
            throw bundleField.error(.invalidBundleId, "may hold only letters, digits, hyphens and periods")
        }
        var environments = defaultEnvironments
        if let list = keys["environments"] { environments = try parseEnvironments(list) }
        let appAppleId = try keys["appAppleId"]?.integer(in: 1...Int64.max)
        if appAppleId == nil, environments.contains(.production) {
            throw CatalogError(.appAppleIdRequired, field: CatalogField.memberPath(field.path, "appAppleId"),
                               "is required when Production is accepted: Apple names the app by it in Production data")
        }
        var transfer = TransferPolicy.keepFirst
        if let policy = keys["transfer"] {
            guard let known = TransferPolicy(rawValue: try policy.string()) else {
                throw policy.error(.unknownTransferPolicy, "must be keep-first or move-to-latest")
            }
            transfer = known
        }
        var app = CatalogApp(bundleId: bundleId, appAppleId: appAppleId, environments: environments,
                             sandboxGrants: try keys["sandboxGrants"]?.bool() ?? true, transfer: transfer)
        app.retention = try keys["retention"].map(CatalogRetention.parse)
        return app
    }

    private static func parseEnvironments(_ field: CatalogField) throws(CatalogError) -> Set<Environment> {
        let names = try field.strings()
        guard !names.isEmpty else { throw field.error(.missing, "names no environment") }
        var environments: Set<Environment> = []
        for (index, name) in names.enumerated() {
            guard let environment = Environment(rawValue: name) else {
                throw CatalogError(.unknownEnvironment, field: "\(field.path)[\(index)]",
                                   "unknown environment \"\(name)\"; use Production, Sandbox, Xcode, LocalTesting")
            }
            environments.insert(environment)
        }
        return environments
    }
}
