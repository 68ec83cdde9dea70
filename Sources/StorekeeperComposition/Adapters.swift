import FoundationEssentials
import FunctionRuntime
import HTTPTransport
import OpenSSLCrypto
import RedisStore
import SQLiteStore
import StorekeeperCore

/// The composition root's adapters: the key-value store named by `STORE_URL` (SQLite by
/// default, Redis when the URL says so) and the HTTP client. Each is built on first use and
/// then kept for the life of the process, so a function that never needs the store never
/// pays to open it, and one that answers a batch opens it once.
public final class Adapters: FunctionAdapters {
    private let environment: EnvironmentVariables
    private var openedHTTP: (any HTTPClient)?
    public private(set) lazy var selfOpeningStore = SelfOpeningStore { [environment] () throws(StoreError) in
        try Self.openStore(environment)
    }

    public init(environment: EnvironmentVariables) {
        self.environment = environment
    }

    /// The store, opened now. Throws only `StoreError`, which the runtime answers by its
    /// disposition: a malformed `STORE_URL`, refused credentials or a store in a newer layout
    /// than this build knows (`StoreLayout`) are `.invalidConfiguration` (exit 78); a store
    /// that cannot be reached or used is retryable (exit 75, HTTP 503).
    public func store() throws -> any KeyValueStore {
        try selfOpeningStore.opened()
    }

    /// The HTTP client (libcurl), TLS verification always on.
    public func http() throws -> any HTTPClient {
        if let openedHTTP { return openedHTTP }
        let client = try CurlHTTPClient(caBundlePath: try environment.value(RuntimeSettings.caBundle))
        openedHTTP = client
        return client
    }

    /// The store's health without opening it the way functions do: SQLite through a read-only
    /// connection (no file, schema or layout mark is created), Redis with read commands only;
    /// never `StoreLayout.prepare`, which may migrate. Throws only `StoreError`.
    public func storeHealth() throws -> StoreHealth {
        let location = try Self.storeLocation(environment)
        switch location {
        case .sqlite(let path):
            guard try Self.tlsOptions(environment).isDefault else {
                throw StoreError(.invalidConfiguration, "STORE_TLS_* are set but STORE_URL is sqlite:, which has no TLS")
            }
            return try SQLiteStore.health(ofFileAt: path)
        case .redis(let url):
            var health = try RedisStore(url: url, tls: try Self.tlsOptions(environment)).health()
            health.location = location.redacted
            return health
        }
    }

    /// copy-store's target: SQLite (created when missing), or Redis over plaintext or TLS
    /// verified against the system's CAs (STORE_TLS_* belong to STORE_URL's server). Not
    /// `StoreLayout.prepare`d: the copy writes the source's layout mark, and a verification
    /// writes nothing.
    public func otherStore(_ location: StoreLocation) throws -> any StoreContents {
        switch location {
        case .sqlite(let path): try SQLiteStore(path: path)
        case .redis(let url): try RedisStore(url: url)
        }
    }

    /// A store written before several apps were supported belongs to the app the one-app
    /// settings name, or else to the catalog's first app. Read raw, not through their
    /// settings: a function that declares neither variable still migrates the store correctly.
    private static func migrationContext(_ environment: EnvironmentVariables) -> StoreMigrationContext {
        let bundleId = environment.optional("APPSTORE_BUNDLE_ID").flatMap { $0.isEmpty ? nil : $0 }
        let catalogPath = environment.optional("STOREKEEPER_CATALOG").flatMap { $0.isEmpty ? nil : $0 }
        return StoreMigrationContext {
            if let bundleId { return bundleId }
            guard let catalogPath, let bytes = FileManager.default.contents(atPath: catalogPath) else { return nil }
            return (try? Catalog.parse(Array(bytes)))?.apps.first?.bundleId
        }
    }

    /// STORE_TLS_*: RedisStore refuses them with a plaintext redis:// URL. With sqlite: they
    /// would mean nothing, so they are refused here (a deployment that meant TLS learns it).
    private static func tlsOptions(_ environment: EnvironmentVariables) throws(StoreError) -> TLSClientOptions {
        do {
            return TLSClientOptions(caFile: try environment.value(RuntimeSettings.storeTLSCAFile),
                                    certificateFile: try environment.value(RuntimeSettings.storeTLSCertFile),
                                    keyFile: try environment.value(RuntimeSettings.storeTLSKeyFile))
        } catch {
            throw StoreError(.invalidConfiguration, (error as? FunctionError)?.message ?? "STORE_TLS_* do not parse")
        }
    }

    private static func storeLocation(_ environment: EnvironmentVariables) throws(StoreError) -> StoreLocation {
        do {
            return try environment.required(RuntimeSettings.storeURL)
        } catch {
            throw StoreError(.invalidConfiguration, (error as? FunctionError)?.message ?? "\(RuntimeSettings.storeURL.name) does not parse")
        }
    }

    private static func openStore(_ environment: EnvironmentVariables) throws(StoreError) -> any KeyValueStore {
        let location = try storeLocation(environment)
        let store: any KeyValueStore
        switch location {
        case .sqlite(let path):
            guard try tlsOptions(environment).isDefault else {
                throw StoreError(.invalidConfiguration, "STORE_TLS_* are set but STORE_URL is sqlite:, which has no TLS")
            }
            store = try SQLiteStore(path: path)
        case .redis(let url): store = try RedisStore(url: url, tls: try tlsOptions(environment))
        }
        // Once per process, before the first read or write: a store in a newer layout is
        // refused (exit 78), an older one migrated.
        try StoreLayout.prepare(store, context: migrationContext(environment))
        return store
    }
}
