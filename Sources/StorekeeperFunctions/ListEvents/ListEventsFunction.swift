import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `list-events`: the event log for a backend that pulls rather than receives webhooks, or
/// catches up after its own outage: the events after a sequence, oldest first, filtered,
/// a page at a time, with where the next page starts and how long the log keeps events.
public final class ListEventsFunction: TypedFunction {
    public typealias Request = ListEventsRequest

    public struct Response: Encodable, Sendable {
        var page: EventPage
        var retentionDays: Int

        enum CodingKeys: String, CodingKey { case events, next, oldest, gap, retentionDays }

        /// `oldest` is null, not left out, when the log keeps nothing.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(page.events, forKey: .events)
            try container.encode(page.next, forKey: .next)
            try container.encode(page.oldest, forKey: .oldest)
            try container.encode(page.gap, forKey: .gap)
            try container.encode(retentionDays, forKey: .retentionDays)
        }
    }

    static let defaultLimit = 100
    static let maximumLimit = 1_000

    /// How many entries one request examines at most when its filters match few: a page
    /// then ends early, `next` where the scan stopped.
    static func scanLimit(forLimit limit: Int) -> Int { max(10 * limit, 1_000) }

    public static let descriptor = FunctionDescriptor(
        name: "list-events",
        route: "/events",
        method: "GET",
        visibility: .internal,
        summary: "List the event log after a sequence, oldest first, filtered and a page at a time: for backends that pull, or catch up.",
        request: """
            {"after": 0, "limit": 100, "types": ["RENEWAL", "REFUND"], "userId": "user-42", "environment": "Production"}
              every field optional: after (default 0) a sequence already seen; limit 1 to 1000 (default 100);
              types from the event vocabulary; userId and environment match the event's own
            over HTTP: GET /events?after=1200&limit=500&types=RENEWAL,REFUND&environment=Sandbox
            """,
        response: """
            {"events": [{"id", "sequence", "type", "occurredAt", "recordedAt", "app", "environment", "customerId",
              "previousCustomerId", "userId", "appAccountToken", "productId", "transactionId", "originalTransactionId",
              "entitlement", "grantId", "notificationUUID", "notificationType", "notificationSubtype", "source",
              "customer": {... as get-customer answers it, "version"}}] oldest first,
             "next": the last sequence examined (ask again with after=next; equal to after when nothing is newer),
             "oldest": the first sequence still kept (null when none), "gap": true when events after `after`
             were already removed (older than retentionDays): the reader missed them, "retentionDays"}
            A page holds at most limit events and examines at most max(10 × limit, 1000) entries: with filters
            that match little it may hold fewer, even none, while next moves on.
            Bad input: invalid_request, HTTP 400, exit 65. The store failing: HTTP 503, exit 75.
            """,
        variables: [.declared(RuntimeSettings.storeURL), .declared(StorekeeperSettings.eventRetentionDays)]
            + StorekeeperSettings.eventCatalogVariables,
        scope: .read
    )

    private let context: FunctionContext
    private let retentionDays: Int
    /// What the relay computes the customer state of events still in outboxes with.
    private let catalog: Catalog

    public init(context: FunctionContext) throws {
        self.context = context
        retentionDays = try context.environment.required(StorekeeperSettings.eventRetentionDays)
        catalog = try StorekeeperSettings.eventCatalog(in: context.environment)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let (after, limit, filter) = try request.validated()
        let store = try context.adapters.store()
        // Events still in outboxes (a writer killed after its change) first: a page sees every
        // change made so far.
        try EventRelay(store: store, catalog: catalog).relayPending(now: context.clock.now().millisecondsSince1970)
        let page = try EventLog(store: store).page(after: after, limit: limit, filter: filter,
                                                   scanLimit: Self.scanLimit(forLimit: limit))
        return Reply(Response(page: page, retentionDays: retentionDays))
    }
}
