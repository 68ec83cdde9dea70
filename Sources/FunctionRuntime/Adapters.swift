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

    /// The store. A malformed `STORE_URL` is a configuration error (exit 78); a store that
    /// cannot be reached is a retryable StoreError (exit 75, HTTP 503).
    public func store() throws -> any KeyValueStore {
        if let openedStore { return openedStore }
        let location = try StoreLocation(parsing: environment.optional(StoreLocation.variable) ?? StoreLocation.defaultValue)
        let opened: Result<any KeyValueStore, StoreError>
        do {
            switch location {
            case .sqlite(let path): opened = .success(try SQLiteStore(path: path))
            case .redis(let url): opened = .success(try RedisStore(url: url))
            }
        } catch {
            opened = .failure(error)
        }
        switch opened {
        case .success(let store):
            openedStore = store
            return store
        case .failure(let error) where error.kind == .invalidConfiguration:
            throw FunctionError.configuration("\(StoreLocation.variable): \(error.reason)")
        case .failure(let error):
            throw error
        }
    }

    /// The HTTP client (libcurl), TLS verification always on.
    public func http() throws -> any HTTPClient {
        if let openedHTTP { return openedHTTP }
        let client = try CurlHTTPClient(caBundlePath: environment.optional(Self.caBundleVariable))
        openedHTTP = client
        return client
    }
}
