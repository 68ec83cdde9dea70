import FoundationEssentials

/// The `customer` of an event: the customer's whole entitlement state as get-customer answers
/// it (entitlements, subscriptions, non-subscriptions; the timeline is left out, it is what the
/// events themselves are), with `customerId` (the relay adds `version`).
///
/// Kept as the JSON bytes it encodes to, never as a `JSONValue`: decoding the state back into
/// one cost about 4M instructions per event, more than all the rest of the worker's work.
struct CustomerSnapshot {
    let store: any KeyValueStore
    let catalog: Catalog

    /// The state now; for a customer the store no longer finds (a purchase's ids of another
    /// app, say), only its id and version.
    func state(of customerId: String, app: String?, now: Int64) throws -> [UInt8] {
        let key: CustomerLookup.Key = customerId.hasPrefix("otid:")
            ? .originalTransactionId(String(customerId.dropFirst(5))) : .user(customerId)
        let apps = app.map { [$0] } ?? catalog.apps.map(\.bundleId)
        var answer: CustomerAnswer?
        if var source = try CustomerLookup(store: store).source(of: key, apps: apps) {
            source.historyLimit = 0
            answer = CustomerAnswer(of: source, catalog: catalog, now: now)
        }
        do {
            return Array(try Event.encoder.encode(State(customerId: customerId, answer: answer)))
        } catch {
            throw StoreError(.failed, "the customer state of an event does not encode: \(error)")
        }
    }

    /// The state with the version the relay gives it, added as the last field (readers decode
    /// the event; what they deliver is encoded again in the canonical order).
    static func versioned(_ state: [UInt8], _ version: Int64) -> [UInt8] {
        guard state.last == UInt8(ascii: "}") else { return state }
        let separator = state.count > 2 ? "," : ""
        return state.dropLast() + Array("\(separator)\"version\":\(version)}".utf8)
    }

    /// get-customer's answer without its timeline, with the customer's id.
    private struct State: Encodable {
        let customerId: String
        let answer: CustomerAnswer?

        enum CodingKeys: String, CodingKey {
            case customerId, userId, appAccountTokens, entitlements, subscriptions, nonSubscriptions
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(customerId, forKey: .customerId)
            guard let answer else { return }
            try container.encode(answer.userId, forKey: .userId)
            try container.encode(answer.appAccountTokens, forKey: .appAccountTokens)
            try container.encode(answer.entitlements, forKey: .entitlements)
            try container.encode(answer.subscriptions, forKey: .subscriptions)
            try container.encode(answer.nonSubscriptions, forKey: .nonSubscriptions)
        }
    }
}
