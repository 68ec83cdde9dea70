import FunctionRuntime
import StorekeeperCore

/// What deliver-events and replay-events share: the endpoints and the sender, read and built
/// once at start, and the step each pass begins with (outboxes into the log).
struct WebhookWiring {
    let endpoints: [WebhookEndpoint]
    let timeout: Duration
    let defaultBudget: Double
    let catalog: Catalog
    let retentionDays: Int
    private let context: FunctionContext

    /// The settings every webhook function reads, besides the catalog's.
    static let variables: [SettingUse] = [
        .declared(RuntimeSettings.storeURL), .declared(StorekeeperSettings.webhookURL),
        .declared(StorekeeperSettings.webhookSecret), .declared(StorekeeperSettings.webhookTimeout),
        .declared(StorekeeperSettings.deliverBudget), .declared(StorekeeperSettings.eventRetentionDays),
    ] + StorekeeperSettings.eventCatalogVariables

    init(context: FunctionContext) throws {
        self.context = context
        // The relay attaches each event's customer state as the catalog names it.
        catalog = try StorekeeperSettings.eventCatalog(in: context.environment)
        retentionDays = try context.environment.required(StorekeeperSettings.eventRetentionDays)
        endpoints = try StorekeeperSettings.webhookEndpoints(in: context.environment, catalog: catalog)
        timeout = .milliseconds(Int64(try context.environment.required(StorekeeperSettings.webhookTimeout) * 1000))
        defaultBudget = try context.environment.required(StorekeeperSettings.deliverBudget)
        for endpoint in endpoints where endpoint.isPlainHTTP {
            context.log.warning("webhook_plain_http", ["endpoint": endpoint.name, "host": endpoint.host])
        }
    }

    /// A run holds an endpoint's lease for longer than any one delivery takes.
    var leaseDuration: Duration { timeout * 2 + .seconds(30) }

    func sender() throws -> WebhookSender {
        WebhookSender(http: try context.adapters.http(), timeout: timeout)
    }

    func endpoint(named name: String) throws -> WebhookEndpoint {
        guard let endpoint = endpoints.first(where: { $0.name == name }) else {
            throw FunctionError.badInput(
                message: "endpoint \(name.prefix(64)) is not configured (\(endpoints.map(\.name).joined(separator: ", ")))")
        }
        return endpoint
    }

    func budget(_ requested: Double?) throws -> Duration {
        let seconds = requested ?? defaultBudget
        guard seconds > 0, seconds <= 3600 else {
            throw FunctionError.badInput(code: .invalidRequest, message: "budgetSeconds must be between 0 and 3600")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// Events still in outboxes go into the log first, so a pass sees every change made so far.
    func relayPending(_ store: any KeyValueStore) throws {
        try EventRelay(store: store, catalog: catalog).relayPending(now: context.clock.now().millisecondsSince1970)
    }
}
