import FoundationEssentials

/// The `customer` of an event: the customer's whole entitlement state as get-customer answers
/// it (entitlements, subscriptions, non-subscriptions; the timeline is left out, it is what the
/// events themselves are), with `customerId` (the relay adds `version`).
struct CustomerSnapshot {
    let store: any KeyValueStore
    let catalog: Catalog

    /// The state now; for a customer the store no longer finds (a purchase's ids of another
    /// app, say), only its id and version.
    func state(of customerId: String, app: String?, now: Int64) throws -> JSONValue {
        let key: CustomerLookup.Key = customerId.hasPrefix("otid:")
            ? .originalTransactionId(String(customerId.dropFirst(5))) : .user(customerId)
        let apps = app.map { [$0] } ?? catalog.apps.map(\.bundleId)
        var fields: [String: JSONValue] = [:]
        if var source = try CustomerLookup(store: store).source(of: key, apps: apps) {
            source.historyLimit = 0
            let answer = CustomerAnswer(of: source, catalog: catalog, now: now)
            do {
                if case .object(let encoded) = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(answer)) {
                    fields = encoded
                }
            } catch {
                throw StoreError(.failed, "the customer state of an event does not encode: \(error)")
            }
            fields["history"] = nil
        }
        fields["customerId"] = .string(customerId)
        return .object(fields)
    }
}
