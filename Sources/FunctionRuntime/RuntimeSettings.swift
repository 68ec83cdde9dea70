import FoundationEssentials

/// The settings the runtime and the composition read, whatever the function: the admin
/// token, the log level, a pinned clock, where the store is and the CA bundle for HTTPS.
/// Functions list the last two in their descriptors when they use the store or HTTP; the
/// first three `--help` adds to every function.
public enum RuntimeSettings {
    public static let adminToken = Setting<String>.text(
        "STOREKEEPER_ADMIN_TOKEN", .optional, secret: true,
        help: "bearer token (named admin, scope admin) for HTTP callers of internal functions; this or STOREKEEPER_TOKENS is required when served over HTTP")

    /// Named, scoped tokens beside the admin token; secret (never from the catalog).
    public static let tokens = Setting<[NamedToken]>(
        "STOREKEEPER_TOKENS", .optional, secret: true,
        help: "more bearer tokens, comma-separated name:scope:token (scope read, support or admin; token at least 16 characters); a name twice is two values valid at once while rotating, admin:admin:<old> keeps the previous admin token valid"
    ) { text throws(SettingProblem) in try NamedToken.parseList(text) }

    /// Lenient by design: an unknown level is a warning at start, and `info` is used.
    public static let logLevel = Setting<LogLevel>(
        "STOREKEEPER_LOG_LEVEL", .optional, default: "info", help: "debug, info (default), warning or error"
    ) { text throws(SettingProblem) in
        guard let level = LogLevel(name: text) else { throw SettingProblem("must be debug, info, warning or error") }
        return level
    }

    /// Pins "now" for replays and golden examples; logged as a warning when set.
    public static let fixedTime = Setting<Date>(
        "STOREKEEPER_NOW", .optional,
        help: "pin the current time (epoch seconds or ISO 8601) for replays and tests; logged as a warning"
    ) { text throws(SettingProblem) in
        if let seconds = Int64(text) { return Date(timeIntervalSince1970: Double(seconds)) }
        guard let date = try? Date(text, strategy: .iso8601) else {
            throw SettingProblem("must be epoch seconds or an ISO 8601 date")
        }
        return date
    }

    /// Secret: a Redis URL may carry a password.
    public static let storeURL = Setting<StoreLocation>(
        "STORE_URL", .optional, secret: true, default: "sqlite:var/storekeeper.db",
        help: "where state and caches live: sqlite:<path> (default sqlite:var/storekeeper.db), redis://[[user]:password@]host[:port][/db] or rediss://... (the same over TLS 1.2+); any node of a Redis Cluster (database 0)"
    ) { text throws(SettingProblem) in try StoreLocation(parsing: text) }

    /// The TLS files for a `rediss://` STORE_URL; paths, so no key passes through a value.
    /// Any of them with another STORE_URL is a configuration error (never silently plaintext).
    public static let storeTLSCAFile = Setting<String>.text(
        "STORE_TLS_CA_FILE", .optional,
        help: "for rediss://: PEM file of the CAs that sign the Redis server's certificate; the system's CAs otherwise")
    public static let storeTLSCertFile = Setting<String>.text(
        "STORE_TLS_CERT_FILE", .optional,
        help: "for rediss:// with mutual TLS: PEM file of our client certificate (with STORE_TLS_KEY_FILE)")
    public static let storeTLSKeyFile = Setting<String>.text(
        "STORE_TLS_KEY_FILE", .optional,
        help: "for rediss:// with mutual TLS: PEM file of our client certificate's private key (with STORE_TLS_CERT_FILE)")

    /// What `--help` lists after STORE_URL for every function that uses the store.
    public static let storeTLS: [SettingDeclaration] = [
        storeTLSCAFile.declaration, storeTLSCertFile.declaration, storeTLSKeyFile.declaration,
    ]

    public static let caBundle = Setting<String>.text(
        "STOREKEEPER_CA_BUNDLE", .optional, help: "CA file for outgoing HTTPS (tests); the system's CAs otherwise")

    /// All of them, for the settings table.
    public static let all: [SettingDeclaration] = [
        adminToken.declaration, tokens.declaration, logLevel.declaration, fixedTime.declaration, storeURL.declaration,
    ] + storeTLS + [caBundle.declaration]
}
