/// One value of the catalog document with the path that leads to it, so every check names
/// its field the same way: schema keys with a dot (`apps[0].bundleId`), names the developer
/// chose in brackets (`products["com.x"].type`).
struct CatalogField {
    let path: String
    let value: StrictJSON

    /// The document itself.
    init(document: StrictJSON) {
        path = ""
        value = document
    }

    private init(path: String, value: StrictJSON) {
        self.path = path
        self.value = value
    }

    /// The path of a schema key below `path`.
    static func memberPath(_ parent: String, _ name: String) -> String {
        parent.isEmpty ? name : "\(parent).\(name)"
    }

    /// The path of a name the developer chose (a product id, an entitlement) below `path`.
    static func keyPath(_ parent: String, _ name: String) -> String {
        var quoted: [UInt8] = []
        JSONObjectBuilder.appendString(name, to: &quoted)
        return "\(parent)[\(String(decoding: quoted, as: UTF8.self))]"
    }

    func error(_ kind: CatalogError.Kind, _ problem: String) -> CatalogError {
        CatalogError(kind, field: path, problem)
    }

    /// The members of an object whose keys are the catalog's own, each checked against
    /// `keys` (a key outside them is a typo, refused with the list of those allowed).
    func members(allowing keys: [String]) throws(CatalogError) -> [String: CatalogField] {
        guard case .object(let members) = value else { throw error(.invalidValue, "must be an object") }
        var fields: [String: CatalogField] = [:]
        for (name, member) in members {
            let field = CatalogField(path: Self.memberPath(path, name), value: member)
            guard keys.contains(name) else {
                throw field.error(.unknownKey, "unknown key; \(path.isEmpty ? "the catalog" : path) takes \(keys.joined(separator: ", "))")
            }
            fields[name] = field
        }
        return fields
    }

    /// The members of an object keyed by names the developer chose, in their order.
    func namedEntries() throws(CatalogError) -> [(name: String, field: CatalogField)] {
        guard case .object(let members) = value else { throw error(.invalidValue, "must be an object") }
        return members.map { ($0.name, CatalogField(path: Self.keyPath(path, $0.name), value: $0.value)) }
    }

    func elements() throws(CatalogError) -> [CatalogField] {
        guard case .array(let elements) = value else { throw error(.invalidValue, "must be an array") }
        return elements.enumerated().map { CatalogField(path: "\(path)[\($0.offset)]", value: $0.element) }
    }

    /// A string that is not empty.
    func string() throws(CatalogError) -> String {
        guard case .string(let text) = value, !text.isEmpty else { throw error(.invalidValue, "must be a non-empty string") }
        return text
    }

    func bool() throws(CatalogError) -> Bool {
        guard case .bool(let flag) = value else { throw error(.invalidValue, "must be true or false") }
        return flag
    }

    /// A whole number in `range`, written without fraction or exponent.
    func integer(in range: ClosedRange<Int64>) throws(CatalogError) -> Int64 {
        guard case .number(let literal) = value, let number = Int64(literal), range.contains(number) else {
            throw error(.invalidValue, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// Strings, none empty, none twice.
    func strings() throws(CatalogError) -> [String] {
        var seen: Set<String> = []
        var strings: [String] = []
        for element in try elements() {
            let text = try element.string()
            guard seen.insert(text).inserted else { throw element.error(.invalidValue, "\"\(text)\" is listed twice") }
            strings.append(text)
        }
        return strings
    }
}
