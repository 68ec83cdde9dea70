import StorekeeperCore

/// deliver-events' answer: a pass's (or a follow loop's totals), or the endpoints' status.
public enum DeliverEventsAnswer: Encodable {
    case pass([WebhookPassReport])
    case status([WebhookEndpointStatus])

    enum CodingKeys: String, CodingKey {
        case endpoints, delivered, pending
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .pass(let reports):
            try container.encode(reports, forKey: .endpoints)
            try container.encode(reports.reduce(0) { $0 + $1.delivered }, forKey: .delivered)
            try container.encode(reports.reduce(0) { $0 + $1.pending }, forKey: .pending)
        case .status(let statuses):
            try container.encode(statuses, forKey: .endpoints)
        }
    }
}

extension WebhookPassReport {
    /// Adds a later pass's counts; its pending, busy and next due time replace the earlier.
    mutating func add(_ later: WebhookPassReport) {
        delivered += later.delivered
        failed += later.failed
        deadLettered += later.deadLettered
        skipped += later.skipped
        pending = later.pending
        busy = later.busy
        nextDueAt = later.nextDueAt
    }
}
