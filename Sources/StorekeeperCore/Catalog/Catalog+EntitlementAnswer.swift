extension EntitlementLookup.Answer {
    /// The answer for one app: its subscriptions only (nil: every app's).
    public func only(bundleId: String?) -> Self {
        guard let bundleId else { return self }
        var answer = self
        answer.entitlements = entitlements.filter { $0.bundleId == bundleId }
        answer.active = answer.entitlements.contains { $0.active }
        return answer
    }
}
