/// What a bearer token may do over HTTP, least first: each scope includes the ones before it.
/// Each internal function's descriptor names the scope it needs (`FunctionDescriptor.scope`).
public enum AccessScope: String, Sendable, CaseIterable, Comparable {
    /// Reading customers, events and figures: get-customer, get-entitlements, list-events,
    /// metrics, dashboard.
    case read
    /// Also changing customers on their behalf: grants, transfers, deletions, merges.
    case support
    /// Everything, the App Store Server API and the operator's runs included.
    case admin

    private var rank: Int {
        switch self {
        case .read: 0
        case .support: 1
        case .admin: 2
        }
    }

    public static func < (lhs: AccessScope, rhs: AccessScope) -> Bool { lhs.rank < rhs.rank }

    /// True when a token of this scope may call a function that needs `needed`.
    public func allows(_ needed: AccessScope) -> Bool { self >= needed }
}

/// Who made a request, as a handler learns it (`FunctionRequest.caller`) for the audit trail:
/// the name of the bearer token that matched and its scope.
public struct Caller: Sendable, Equatable {
    /// The token's name (`admin` for `STOREKEEPER_ADMIN_TOKEN`, else its STOREKEEPER_TOKENS
    /// name), or `local` for a direct call.
    public let name: String
    public let scope: AccessScope

    public init(name: String, scope: AccessScope) {
        self.name = name
        self.scope = scope
    }

    /// A direct call (a shell, cron): whoever can run the binary can read its environment.
    public static let local = Caller(name: "local", scope: .admin)
}
