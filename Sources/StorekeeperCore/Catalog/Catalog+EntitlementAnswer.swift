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
        for index in answer.entitlements.indices {
            let entitlement = answer.entitlements[index]
            let app = entitlement.bundleId.flatMap { catalog.app(bundleId: $0) }
            let environment = entitlement.environment.flatMap(Environment.init(rawValue:))
            if let app, !app.grants(in: environment) {
                answer.entitlements[index].active = false
            }
        }
        answer.active = answer.entitlements.contains { $0.active }
        return answer
    }
}
