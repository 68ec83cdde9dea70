/// What a function is: its name, where it is served, who may call it, and the help text that
/// `--help` prints. The runtime uses `method`, `route` and `visibility` to admit HTTP requests.
public struct FunctionDescriptor: Sendable {
    /// The function's name, also its executable's name: `verify-signed-data`.
    public var name: String
    /// The HTTP route (`/appstore/verify`), or nil for a cron-only function, which then
    /// answers 404 over HTTP.
    public var route: String?
    /// The first (for most functions the one) HTTP method accepted over HTTP (`POST`, `GET`).
    public var method: String
    /// Every method accepted over HTTP (`method` first); anything else is 405.
    public var methods: [String]
    /// True for a page that signs its visitors in itself (dashboard): over HTTP an internal
    /// request without a valid bearer token still reaches the handler, with no `caller`,
    /// and the handler must answer a sign-in form or check its own credential (a cookie).
    public var signsInItself: Bool
    public var visibility: Visibility
    /// The scope an internal function's caller needs over HTTP (admin unless the function
    /// says less: get-customer needs read, grants support); ignored for a public function.
    public var scope: AccessScope
    /// One line.
    public var summary: String
    /// Help text: the request shape.
    public var request: String
    /// Help text: the response shape.
    public var response: String
    /// The settings the function reads; `allVariables` adds the runtime's own.
    public var variables: [SettingUse]

    public init(
        name: String,
        route: String?,
        method: String,
        visibility: Visibility,
        summary: String,
        request: String,
        response: String,
        variables: [SettingUse] = [],
        scope: AccessScope = .admin,
        otherMethods: [String] = [],
        signsInItself: Bool = false
    ) {
        self.name = name
        self.route = route
        self.method = method.uppercased()
        self.methods = [method.uppercased()] + otherMethods.map { $0.uppercased() }
        self.signsInItself = signsInItself
        self.visibility = visibility
        self.summary = summary
        self.request = request
        self.response = response
        self.variables = variables
        self.scope = scope
    }
}

extension FunctionDescriptor {
    /// What `--help` lists: the function's settings (STORE_URL followed by its TLS files),
    /// then the runtime's (the bearer tokens only for an internal function, unless the
    /// function lists them itself).
    public var allVariables: [SettingUse] {
        var all = variables
        if let store = all.firstIndex(where: { $0.name == RuntimeSettings.storeURL.name }) {
            let tls = RuntimeSettings.storeTLS.filter { setting in !all.contains { $0.name == setting.name } }
            all.insert(contentsOf: tls.map { SettingUse(declaration: $0, requirement: $0.requirement) }, at: store + 1)
        }
        if visibility == .internal {
            for token in [RuntimeSettings.adminToken.declaration, RuntimeSettings.tokens.declaration]
            where !all.contains(where: { $0.name == token.name }) {
                all.append(SettingUse(declaration: token, requirement: token.requirement))
            }
        }
        all.append(.declared(RuntimeSettings.logLevel))
        all.append(.declared(RuntimeSettings.fixedTime))
        return all
    }
}
