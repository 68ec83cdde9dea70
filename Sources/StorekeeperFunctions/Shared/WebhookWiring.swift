import FunctionRuntime
import StorekeeperCore

/// What deliver-events and replay-events share: the endpoints and the sender, read and built
/// once at start, and the step each pass begins with (outboxes into the log).
struct WebhookWiring {
    let endpoints: [WebhookEndpoint]
    let timeout: Duration
    let defaultBudget: Double
    let catalog: Catalog
    private let context: FunctionContext

    /// The settings every webhook function reads, besides the catalog's.
    static let variables: [SettingUse] = [
        .declared(RuntimeSettings.storeURL), .declared(StorekeeperSettings.catalog),
        .declared(StorekeeperSettings.webhookURL), .declared(StorekeeperSettings.webhookSecret),
        .declared(StorekeeperSettings.webhookTimeout), .declared(StorekeeperSettings.deliverBudget),
    ]

    init(context: FunctionContext) throws {
        self.context = context
        // EVENTS-RELAY: the lead's `eventCatalog(in:)` replaces this once it is on main.
        catalog = try StorekeeperSettings.catalogIfConfigured(in: context.environment)
            ?? Catalog(apps: [], entitlements: [:], products: [:], productsImplied: true)
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
        // EVENTS-RELAY: `try EventRelay(store: store, catalog: catalog).relayPending(now: ...)` once it is on main.
        _ = store
    }
}
