/// A consumable purchase as kept at `StoreKeys.purchase`: its transaction's facts (the fields
/// of `TransactionFacts`, at the top level as before events existed, so older records read as
/// they are), whose events they are, and the events not yet in the log.
struct PurchaseRecord: EventCarrying {
    var facts: TransactionFacts
    var customerId: String?
    var outbox: [Event] = []

    init(facts: TransactionFacts, customerId: String?, outbox: [Event] = []) {
        self.facts = facts
        self.customerId = customerId
        self.outbox = outbox
    }

    enum CodingKeys: String, CodingKey {
        case customerId, outbox
    }

    init(from decoder: any Decoder) throws {
        facts = try TransactionFacts(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        customerId = try container.decodeIfPresent(String.self, forKey: .customerId)
        outbox = try container.decodeIfPresent([Event].self, forKey: .outbox) ?? []
    }

    func encode(to encoder: any Encoder) throws {
        try facts.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(customerId, forKey: .customerId)
        if !outbox.isEmpty { try container.encode(outbox, forKey: .outbox) }
    }
}
