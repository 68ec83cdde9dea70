/// What `app-store-api --help` says of its operations.
extension AppStoreAPIOperationSpec {
    /// The `--help` lines: one per operation with its parameters.
    static var helpText: String {
        all.map { spec in
            var parts: [String] = spec.identifiers.map { "\"\($0)\"" } + (spec.takesImage ? ["\"image\" (base64 PNG)"] : [])
            if !spec.query.isEmpty { parts.append("query {" + spec.query.joined(separator: ", ") + "}") }
            if !spec.body.isEmpty {
                parts.append("body {" + spec.body.map { spec.requiredBody.contains($0) ? $0 + "*" : $0 }.joined(separator: ", ") + "}")
            }
            switch spec.paging {
            case .none: break
            case .revision: parts.append("allPages (revision)")
            case .paginationToken: parts.append("allPages (paginationToken)")
            }
            return "  " + spec.name + (parts.isEmpty ? "" : ": " + parts.joined(separator: "; "))
        }.joined(separator: "\n")
    }
}
