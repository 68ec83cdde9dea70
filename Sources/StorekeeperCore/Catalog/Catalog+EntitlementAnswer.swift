extension EntitlementLookup.Answer {
    /// The answer for one app: its subscriptions only (nil: every app's).
    public func only(bundleId: String?) -> Self {
        guard let bundleId else { return self }
        var answer = self
        answer.entitlements = entitlements.filter { $0.bundleId == bundleId }
        answer.active = answer.entitlements.contains { $0.active }
        return answer
    }

    /// The answer as the catalog grants: a sandbox purchase of an app whose `sandboxGrants`
    /// is false stays listed, with its environment, but is not active.
    public func granting(under catalog: Catalog) -> Self {
        var answer = self
        answer.entitlements = entitlements.map(catalog.granting)
        answer.active = answer.entitlements.contains { $0.active }
        return answer
    }
}

extension Catalog {
    /// The entitlement as its app grants: a sandbox purchase of an app whose `sandboxGrants`
    /// is false is not active (it is still answered, with its environment).
    public func granting(_ entitlement: Entitlement) -> Entitlement {
        guard let app = entitlement.bundleId.flatMap({ app(bundleId: $0) }),
              !app.grants(in: entitlement.environment.flatMap(Environment.init(rawValue:))) else { return entitlement }
        var refused = entitlement
        refused.active = false
        return refused
    }
}
