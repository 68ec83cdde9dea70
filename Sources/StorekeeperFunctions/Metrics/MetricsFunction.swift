import FunctionRuntime
import StorekeeperCore

/// `metrics`: the Prometheus scrape target. Counts what the event log holds beyond the
/// aggregator's cursor (bounded: the worker catches up at the end of each run, so a scrape
/// finds little), then answers the figures of every app and environment and of the pipeline
/// in the text exposition format. Its cost grows with apps, environments and webhook
/// endpoints, not with customers.
public final class MetricsFunction: TypedFunction {
    public typealias Request = NoFields
    public typealias Response = MetricsAggregator.Progress

    /// Events one scrape counts at most before it answers.
    static let catchUpLimit = 2_000

    public static let descriptor = FunctionDescriptor(
        name: "metrics",
        route: "/metrics",
        method: "GET",
        visibility: .internal,
        summary: "Prometheus metrics: subscriptions, revenue estimate, notifications, queue, dead letters, webhooks, reconciliation.",
        request: """
            {} (over HTTP: GET /metrics, no parameters; Authorization: Bearer <a token with the read scope>)
            """,
        response: """
            Content-Type: text/plain; version=0.0.4; charset=utf-8: the Prometheus text format, every family with
            # HELP and # TYPE (the README's "Metrics" section lists them):
              storekeeper_subscriptions{app,environment,status}, storekeeper_entitlement_subscriptions{app,environment,
              entitlement,status}, storekeeper_product_active_subscriptions{app,environment,product},
              storekeeper_estimated_monthly_recurring_revenue{app,environment,currency},
              storekeeper_subscription_events_total{app,environment,kind}, storekeeper_notifications_received_total{app,
              environment,type}, storekeeper_last_notification_timestamp_seconds and _age_seconds{app,environment},
              storekeeper_notification_queue_jobs, storekeeper_queue_oldest_job_age_seconds (0 when empty),
              storekeeper_notification_dead_letters,
              storekeeper_notification_last_dead_letter_timestamp_seconds{code}, storekeeper_webhook_events{endpoint,state},
              storekeeper_webhook_deliveries_total{endpoint,result},
              storekeeper_webhook_oldest_pending_age_seconds{endpoint}, storekeeper_reconciliation_corrections_total{app,kind},
              storekeeper_recovery_first_send_attempts{app,environment,result}, storekeeper_recovery_last_run_queued,
              _complete and _timestamp_seconds{app,environment} (recover-notifications' last run),
              storekeeper_event_log_last_sequence, storekeeper_metrics_events_behind
            Before answering it counts at most 2000 new events of the log (the rest at the next scrape or worker run).
            The store failing: HTTP 503, exit 75.
            """,
        variables: [.declared(RuntimeSettings.storeURL), .declared(StorekeeperSettings.webhookURL)]
            + StorekeeperSettings.eventCatalogVariables,
        scope: .read
    )

    private let context: FunctionContext
    /// The webhook endpoints whose state is reported, by name.
    private let endpoints: [(name: String, host: String)]

    public init(context: FunctionContext) throws {
        self.context = context
        let catalog = try StorekeeperSettings.eventCatalog(in: context.environment)
        endpoints = try StorekeeperSettings.reportedWebhookEndpoints(in: context.environment, catalog: catalog)
    }

    public func handle(_ request: NoFields, call _: FunctionRequest) throws -> Reply<Response> {
        let store = try context.adapters.store()
        let now = context.clock.now().millisecondsSince1970
        let progress = try MetricsAggregator(store: store).catchUp(maxEvents: Self.catchUpLimit, now: now)
        if progress.events > 0 {
            context.log.info("metrics_counted", ["events": progress.events, "sequence": progress.sequence,
                                                 "caughtUp": progress.caughtUp])
        }
        let reading = try MetricsReading.read(store: store, webhooks: endpoints, now: now,
                                              realNow: context.clock.realNow().millisecondsSince1970)
        var reply = Reply(progress)
        reply.data = (Array(MetricsExposition.text(of: reading).utf8), PrometheusText.contentType)
        reply.headers = [("Cache-Control", "no-store")]
        return reply
    }
}
