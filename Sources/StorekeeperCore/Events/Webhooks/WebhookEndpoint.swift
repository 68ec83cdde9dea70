/// Where deliver-events sends events: a URL of the app's backend (or a chat's incoming
/// webhook), its signing secrets and which events it wants. From `STOREKEEPER_WEBHOOK_URL` and
/// `STOREKEEPER_WEBHOOK_SECRET` (named `default`), or from the catalog's `webhooks` section.
///
/// Everything said about an endpoint outside (logs, status, errors) names it by `name` and
/// `host` only: the path and query of a chat webhook URL are themselves a credential.
public struct WebhookEndpoint: Sendable, Equatable {
    /// What the body is.
    public enum Format: String, Sendable, Equatable, CaseIterable {
        /// The event's JSON (`Event.encoded()`).
        case json
        /// `{"text": "<one readable line>"}`: Slack's and Discord's incoming webhooks take it.
        case slack
    }

    public var name: String
    public var url: String
    public var secrets: [WebhookSecret]
    /// Only events of these types (nil: every type).
    public var types: Set<String>?
    /// Only events of these environments (nil: every environment, and events of none).
    public var environments: Set<String>?
    public var format: Format

    public init(name: String, url: String, secrets: [WebhookSecret], types: Set<String>? = nil,
                environments: Set<String>? = nil, format: Format = .json) {
        self.name = name
        self.url = url
        self.secrets = secrets
        self.types = types
        self.environments = environments
        self.format = format
    }

    /// The URL's host (and port), without scheme, credentials, path or query.
    public var host: String {
        Self.host(of: url)
    }

    /// True for a plain `http://` URL: allowed (a backend on the same host), warned about.
    public var isPlainHTTP: Bool { url.hasPrefix("http://") }

    /// Whether this endpoint wants the event.
    public func accepts(_ event: Event) -> Bool {
        if let types, !types.contains(event.type) { return false }
        if let environments {
            guard let environment = event.environment, environments.contains(environment) else { return false }
        }
        return true
    }

    static func host(of url: String) -> String {
        var rest = Substring(url)
        for scheme in ["https://", "http://"] where rest.hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        // user:password@ is a credential too.
        if let at = authority.lastIndex(of: "@") { return String(authority[authority.index(after: at)...]) }
        return String(authority)
    }
}
