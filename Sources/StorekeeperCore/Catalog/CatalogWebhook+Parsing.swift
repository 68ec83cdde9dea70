/// Reading the catalog's `webhooks`: `[{"name", "url", "secretEnv", "types", "environments", "format"}]`.
extension CatalogWebhook {
    static let keys = ["name", "url", "secretEnv", "types", "environments", "format"]

    static func parseList(_ field: CatalogField) throws(CatalogError) -> [CatalogWebhook] {
        var webhooks: [CatalogWebhook] = []
        for element in try field.elements() {
            let webhook = try parse(element)
            if let other = webhooks.firstIndex(where: { $0.name == webhook.name }) {
                throw CatalogError(.duplicateWebhook, field: CatalogField.memberPath(element.path, "name"),
                                   "\(webhook.name) is already \(field.path)[\(other)]'s")
            }
            webhooks.append(webhook)
        }
        return webhooks
    }

    static func parse(_ field: CatalogField) throws(CatalogError) -> CatalogWebhook {
        let keys = try field.members(allowing: Self.keys)
        func required(_ key: String) throws(CatalogError) -> CatalogField {
            guard let value = keys[key] else {
                throw CatalogError(.missing, field: CatalogField.memberPath(field.path, key), "is required")
            }
            return value
        }
        let nameField = try required("name")
        let name = try nameField.string()
        guard isValidName(name) else {
            throw nameField.error(.invalidValue, "may hold only lowercase letters, digits, - and _ (at most 64)")
        }
        let urlField = try required("url")
        let url = try urlField.string()
        guard url.hasPrefix("https://") || url.hasPrefix("http://"), !WebhookEndpoint.host(of: url).isEmpty else {
            throw urlField.error(.invalidValue, "must be an http(s) URL")
        }
        let secretField = try required("secretEnv")
        let secretEnv = try secretField.string()
        guard isVariableName(secretEnv) else {
            throw secretField.error(.invalidValue, "must name an environment variable (A-Z, 0-9, _): the secret itself stays out of the file")
        }
        return CatalogWebhook(name: name, url: url, secretEnv: secretEnv, types: try keys["types"].map(parseTypes),
                              environments: try keys["environments"].map(parseEnvironments),
                              format: try keys["format"].map(parseFormat) ?? .json)
    }

    private static func parseTypes(_ field: CatalogField) throws(CatalogError) -> Set<String> {
        let types = try field.strings()
        guard !types.isEmpty else { throw field.error(.invalidValue, "names no type; leave it out for every type") }
        for (index, type) in types.enumerated() where EventType(rawValue: type) == nil {
            throw CatalogError(.unknownEventType, field: "\(field.path)[\(index)]", "\(type) is not an event type")
        }
        return Set(types)
    }

    private static func parseEnvironments(_ field: CatalogField) throws(CatalogError) -> Set<String> {
        let environments = try field.strings()
        guard !environments.isEmpty else { throw field.error(.invalidValue, "names no environment; leave it out for every one") }
        for (index, environment) in environments.enumerated() where Environment(rawValue: environment) == nil {
            throw CatalogError(.unknownEnvironment, field: "\(field.path)[\(index)]",
                               "must be one of \(Environment.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return Set(environments)
    }

    private static func parseFormat(_ field: CatalogField) throws(CatalogError) -> WebhookEndpoint.Format {
        guard let format = WebhookEndpoint.Format(rawValue: try field.string()) else {
            throw field.error(.invalidValue, "must be json or slack")
        }
        return format
    }
}
