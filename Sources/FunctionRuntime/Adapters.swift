import HTTPTransport
import RedisStore
import SQLiteStore
import StorekeeperCore

/// The composition root's adapters: the key-value store named by `STORE_URL` (SQLite by
/// default, Redis when the URL says so) and the HTTP client. Each is built on first use and
/// then kept for the life of the process, so a function that never needs the store never
/// pays to open it, and one that answers a batch opens it once.
public final class Adapters {
    /// CA bundle for outgoing HTTPS (tests point it at their own CA); the system's otherwise.
    public static let caBundleVariable = "STOREKEEPER_CA_BUNDLE"

    private let environment: EnvironmentVariables
    private var openedStore: (any KeyValueStore)?
    private var openedHTTP: (any HTTPClient)?

    public init(environment: EnvironmentVariables) {
        self.environment = environment
    }

    /// Adapters that are already built (tests pass a store of their own making).
    public init(environment: EnvironmentVariables, store: (any KeyValueStore)?, http: (any HTTPClient)? = nil) {
        self.environment = environment
        self.openedStore = store
        self.openedHTTP = http
    }

    /// The store. Throws only `StoreError`, which the runtime answers by its disposition: a
    /// malformed `STORE_URL`, refused credentials or a store in a newer layout than this
    /// build knows (`StoreLayout`) are `.invalidConfiguration` (exit 78); a
    /// store that cannot be reached or used is retryable (exit 75, HTTP 503).
    public func store() throws -> any KeyValueStore {
        if let openedStore { return openedStore }
        let location: StoreLocation
        do {
            location = try StoreLocation(parsing: environment.optional(StoreLocation.variable) ?? StoreLocation.defaultValue)
        } catch {
            throw StoreError(.invalidConfiguration, error.message)
        }
        let store: any KeyValueStore
        switch location {
        case .sqlite(let path): store = try SQLiteStore(path: path)
        case .redis(let url): store = try RedisStore(url: url)
        }
        // Once per process, before the first read or write: a store in a newer layout is
        // refused (exit 78), an older one migrated.
        try StoreLayout.prepare(store)
        openedStore = store
        return store
    }

    /// The HTTP client (libcurl), TLS verification always on.
    public func http() throws -> any HTTPClient {
        if let openedHTTP { return openedHTTP }
        let client = try CurlHTTPClient(caBundlePath: environment.optional(Self.caBundleVariable))
        openedHTTP = client
        return client
    }
}
