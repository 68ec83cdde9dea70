/// Which events a reader of the log wants (list-events): every field given must match.
public struct EventFilter: Sendable, Equatable {
    /// `EventType` raw values; nil for any type.
    public var types: Set<String>?
    /// The event's `userId`.
    public var userId: String?
    /// The event's `environment` (`Production`, `Sandbox`, ...).
    public var environment: String?

    public init(types: Set<String>? = nil, userId: String? = nil, environment: String? = nil) {
        self.types = types
        self.userId = userId
        self.environment = environment
    }

    public func matches(_ event: Event) -> Bool {
        if let types, !types.contains(event.type) { return false }
        if let userId, event.userId != userId { return false }
        if let environment, event.environment != environment { return false }
        return true
    }
}

/// One page of the log for a reader that pulls (list-events): the events after a sequence
/// that match a filter, and where the next page starts.
public struct EventPage: Sendable, Equatable {
    /// Oldest first, at most the limit asked for.
    public var events: [Event]
    /// The last sequence examined, matching or not, so a filtered page still moves on; the
    /// `after` asked for when nothing newer exists.
    public var next: Int64
    /// The first sequence the log still keeps; nil when it keeps none.
    public var oldest: Int64?
    /// True when events after `after` were trimmed before this read: the reader missed them.
    public var gap: Bool
}

extension EventLog {
    /// Reads the log after `after`, keeping the events `filter` matches, until `limit` are
    /// kept, the log ends, or `scanLimit` entries were examined (the bound on one request's
    /// work when the filter matches little). Sequences are dense, so an entry after `after`
    /// other than `after + 1` means the ones between were trimmed.
    public func page(after: Int64, limit: Int, filter: EventFilter, scanLimit: Int) throws -> EventPage {
        var events: [Event] = []
        var next = after
        var examined = 0
        var firstExamined: Int64?
        scanning: while events.count < limit, examined < scanLimit {
            let chunk = min(max(limit, 100), scanLimit - examined)
            let read = try self.events(after: next, limit: chunk)
            for event in read {
                examined += 1
                next = event.sequence
                if firstExamined == nil { firstExamined = event.sequence }
                if filter.matches(event) { events.append(event) }
                if events.count == limit { break scanning }
            }
            if read.count < chunk { break }
        }
        // Read after the entries: a trim that ran meanwhile shows as a gap, never hides one.
        let bounds = try bounds()
        let gap: Bool
        if let firstExamined {
            gap = firstExamined - 1 > after
        } else {
            // Nothing after `after` now: a gap when sequences after it were assigned and the
            // next one is not kept (kept, it was appended after the read, not missed).
            gap = bounds.last > after && (bounds.first.map { $0 - 1 > after } ?? true)
        }
        return EventPage(events: events, next: next, oldest: bounds.first, gap: gap)
    }
}
