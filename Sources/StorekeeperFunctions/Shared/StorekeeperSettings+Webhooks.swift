import FunctionRuntime
import StorekeeperCore

/// Webhooks (deliver-events, replay-events): one endpoint from the environment, or a list in
/// the catalog's `webhooks` section whose secrets stay in the environment (`secretEnv`).
extension StorekeeperSettings {
    static let webhookURL = Setting<String>(
        "STOREKEEPER_WEBHOOK_URL", .optional, sources: [.environment, .catalogSection("webhooks")],
        help: "the one webhook endpoint, named default (http:// is allowed, with a warning); with STOREKEEPER_WEBHOOK_SECRET; or the catalog's webhooks, not both"
    ) { text throws(SettingProblem) in
        guard text.hasPrefix("https://") || text.hasPrefix("http://") else { throw SettingProblem("must be an http(s) URL") }
        return text
    }

    static let webhookSecret = Setting<[WebhookSecret]>(
        "STOREKEEPER_WEBHOOK_SECRET", .optional, secret: true,
        help: "the default endpoint's signing secret, whsec_<base64> (Standard Webhooks); several separated by spaces while rotating, each signs"
    ) { text throws(SettingProblem) in
        guard let secrets = WebhookSecret.parseList(text) else {
            throw SettingProblem("must be whsec_<base64 of at least \(WebhookSecret.minimumKeyBytes) bytes>, several separated by spaces")
        }
        return secrets
    }

    static let webhookTimeout = Setting<Double>.positiveNumber(
        "STOREKEEPER_WEBHOOK_TIMEOUT_SECONDS", default: 15, maximum: 300,
        help: "how long one delivery may take before it counts as a timeout and is retried (15)")

    static let deliverBudget = Setting<Double>.positiveNumber(
        "DELIVER_BUDGET_SECONDS", default: 50, maximum: 3600,
        help: "default time budget of a deliver-events or replay-events pass (50); the rest waits for the next")

    static let webhooks: [SettingDeclaration] = [
        webhookURL.declaration, webhookSecret.declaration, webhookTimeout.declaration, deliverBudget.declaration,
    ]

    /// Every endpoint the deployment delivers to, read once at start. A mistake is exit 78
    /// naming the variable or the endpoint, never a secret's value.
    static func webhookEndpoints(in environment: EnvironmentVariables, catalog: Catalog) throws -> [WebhookEndpoint] {
        let url = try environment.value(webhookURL)
        let secrets = try environment.value(webhookSecret)
        if !catalog.webhooks.isEmpty {
            guard url == nil, secrets == nil else {
                throw FunctionError.configuration(
                    "\(webhookURL.name) and \(webhookSecret.name) set beside the catalog's webhooks, which replace them: unset them")
            }
            return try catalog.webhooks.map { webhook in try endpoint(webhook, in: environment) }
        }
        switch (url, secrets) {
        case (let url?, let secrets?): return [WebhookEndpoint(name: "default", url: url, secrets: secrets)]
        case (.some, nil): throw FunctionError.configuration("\(webhookURL.name) is set without \(webhookSecret.name)")
        case (nil, .some): throw FunctionError.configuration("\(webhookSecret.name) is set without \(webhookURL.name)")
        case (nil, nil):
            throw FunctionError.configuration(
                "no webhook endpoint: set \(webhookURL.name) and \(webhookSecret.name), or the catalog's webhooks")
        }
    }

    /// The endpoints whose delivery state the operator's views report (metrics, dashboard), by
    /// name: the catalog's, or "default" for the single STOREKEEPER_WEBHOOK_URL, or none. Names
    /// only: a report needs no secret, so one missing is not an error here.
    static func reportedWebhookEndpoints(in environment: EnvironmentVariables,
                                         catalog: Catalog) throws -> [(name: String, host: String)] {
        if !catalog.webhooks.isEmpty { return catalog.webhooks.map { ($0.name, "") } }
        return try environment.value(webhookURL) != nil ? [("default", "")] : []
    }

    private static func endpoint(_ webhook: CatalogWebhook, in environment: EnvironmentVariables) throws -> WebhookEndpoint {
        guard let text = environment.optional(webhook.secretEnv) else {
            throw FunctionError.configuration("\(webhook.secretEnv), the secret of webhook \(webhook.name), is not set")
        }
        guard let secrets = WebhookSecret.parseList(text) else {
            throw FunctionError.configuration(
                "\(webhook.secretEnv), the secret of webhook \(webhook.name), must be whsec_<base64>, several separated by spaces")
        }
        return WebhookEndpoint(name: webhook.name, url: webhook.url, secrets: secrets, types: webhook.types,
                               environments: webhook.environments, format: webhook.format)
    }
}
