/// Names of the environment variables the runtime itself reads, so every function spells
/// them the same. The settings among them are declared in `RuntimeSettings`.
public enum RuntimeVariable {
    /// The bearer token internal functions require over HTTP.
    public static let adminToken = RuntimeSettings.adminToken.name
    public static let tokens = RuntimeSettings.tokens.name
    public static let logLevel = RuntimeSettings.logLevel.name
    /// Set by every CGI server; its presence selects the CGI front door (not a setting).
    public static let gatewayInterface = "GATEWAY_INTERFACE"
    public static let fixedTime = RuntimeSettings.fixedTime.name
}
