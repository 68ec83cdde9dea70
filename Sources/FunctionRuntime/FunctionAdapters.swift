import StorekeeperCore

/// The adapters a process is composed with (the key-value store, the HTTP client), as the
/// runtime hands them to a handler in its `FunctionContext`. The runtime itself knows none of
/// them: the composition module (StorekeeperComposition) builds them from the settings, each
/// on first use, and `functions/<name>/main.swift` names it.
public protocol FunctionAdapters: AnyObject {
    /// The store, opened now (its failure is the caller's, at once). Throws only
    /// `StoreError`, which the runtime answers by its disposition.
    func store() throws -> any KeyValueStore
    /// The same store, opened by the first operation that needs it: for parts that may never
    /// touch it (caches read before anything is proven, repositories built at start-up).
    var selfOpeningStore: SelfOpeningStore { get }
    /// The HTTP client, TLS verification always on.
    func http() throws -> any HTTPClient
    /// The store's health (`doctor`), read without writing: the store opened for this alone,
    /// never migrated or marked. Throws `StoreError` when it cannot be reached.
    func storeHealth() throws -> StoreHealth
    /// A store other than STORE_URL's (copy-store's target), opened now as it is: never
    /// migrated or marked, since the copy brings the source's mark. Throws `StoreError`.
    func otherStore(_ location: StoreLocation) throws -> any StoreContents
}

extension FunctionAdapters {
    /// The opened store's own report, for compositions whose store needs no read-only door
    /// (an in-memory store in process).
    public func storeHealth() throws -> StoreHealth {
        guard let store = try store() as? any StoreHealthReporting else {
            throw StoreError(.invalidConfiguration, "this process's store cannot report its health")
        }
        return try store.health()
    }

    /// Compositions with one store only (the runtime's own tests, in-process stores).
    public func otherStore(_ location: StoreLocation) throws -> any StoreContents {
        throw StoreError(.invalidConfiguration, "this process was composed with one store only")
    }
}

/// A runtime composed with no adapters (the runtime's own tests): a handler that asks for
/// one gets a configuration error (exit 78) saying so, never a store or client of a guess.
public final class NoAdapters: FunctionAdapters {
    public init() {}

    public let selfOpeningStore = SelfOpeningStore { () throws(StoreError) in
        throw StoreError(.invalidConfiguration, "this process was composed without a store")
    }

    public func store() throws -> any KeyValueStore {
        try selfOpeningStore.opened()
    }

    public func http() throws -> any HTTPClient {
        throw FunctionError.configuration("this process was composed without an HTTP client")
    }
}
