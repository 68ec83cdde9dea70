import Foundation
import SQLiteStore
import StorekeeperCore
import StorekeeperTesting
import Testing

/// One key-value store implementation under test. The conformance suite is written once and
/// runs against every entry of `all`; a backend only says how to get a fresh store.
struct StoreBackend: Sendable, CustomTestStringConvertible {
    let name: String
    /// The locator of a new, empty store that no other test uses, in `STORE_URL` form, so
    /// `store-stress` processes can open the same store.
    let makeLocator: @Sendable () throws -> String
    /// Opens the store at a locator made by `makeLocator`, in this process.
    let open: @Sendable (_ locator: String) throws -> any KeyValueStore

    /// An empty, isolated store.
    func makeStore() throws -> any KeyValueStore {
        try open(makeLocator())
    }

    var testDescription: String { name }

    /// Every backend the conformance suite runs against.
    static let all: [StoreBackend] = [.sqlite] + redisWhenAvailable

    /// The real stores and StorekeeperTesting's MemoryStore, which in-process tests of the
    /// core stand on: for the parts of the contract it implements (not across processes).
    static let withMemoryStore: [StoreBackend] = all + [.memory]

    static let memory = StoreBackend(
        name: "MemoryStore",
        makeLocator: { "memory:" + UUID().uuidString },
        open: { locator in MemoryStores.shared.store(at: locator) }
    )

    /// A new database file in a folder that does not exist yet (so every test also covers
    /// the store creating its folder).
    static let sqlite = StoreBackend(
        name: "SQLite",
        makeLocator: { "sqlite:" + TestDirectory.newPath("store.db") },
        open: { locator in
            guard locator.hasPrefix("sqlite:") else { throw StoreError(.invalidConfiguration, locator) }
            return try SQLiteStore(path: String(locator.dropFirst("sqlite:".count)))
        }
    )
}

/// MemoryStores by locator, so opening a locator twice in this process gives the same store.
final class MemoryStores: @unchecked Sendable {
    static let shared = MemoryStores()
    private var stores: [String: MemoryStore] = [:]
    private let lock = NSLock()

    func store(at locator: String) -> MemoryStore {
        lock.withLock {
            if let store = stores[locator] { return store }
            let store = MemoryStore()
            stores[locator] = store
            return store
        }
    }
}
