/// Environment variables the runtime itself reads, so every function spells them the same.
public enum RuntimeVariable {
    /// The bearer token internal functions require over HTTP.
    public static let adminToken = "STOREKEEPER_ADMIN_TOKEN"
    /// `debug`, `info` (default), `warning` or `error`.
    public static let logLevel = "STOREKEEPER_LOG_LEVEL"
    /// Set by every CGI server; its presence selects the CGI front door.
    public static let gatewayInterface = "GATEWAY_INTERFACE"
    /// Pins "now" (epoch seconds or ISO 8601) for replays and golden examples. Logged when set.
    public static let fixedTime = "STOREKEEPER_NOW"
    /// CA bundle for outgoing HTTPS (tests point it at their own CA); the system's otherwise.
    public static let caBundle = "STOREKEEPER_CA_BUNDLE"
}
