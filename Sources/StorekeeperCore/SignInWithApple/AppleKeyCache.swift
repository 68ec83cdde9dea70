import FoundationEssentials

/// Apple's signing keys (`/auth/keys`), cached in the store so every process shares them.
///
/// - A cached set younger than `freshFor` is used as is.
/// - An older one is refreshed; if Apple cannot be reached, the cached keys still serve.
/// - A `kid` the cached set lacks (Apple rotated) triggers one refresh, at most once per
///   `refreshInterval` across all processes: the right to refresh is a `setIfAbsent` with an
///   expiry in the store, so a flood of tokens with made-up `kid`s costs Apple one request a minute.
public struct AppleKeyCache: IdentityKeyProvider {
    public static let freshFor: Duration = .seconds(3600)
    /// How long the store keeps a set at all: the fallback while Apple is unreachable.
    public static let keptFor: Duration = .seconds(7 * 24 * 3600)
    public static let refreshInterval: Duration = .seconds(60)

    struct CachedKeySet: Codable {
        var fetchedAt: Int64
        var keys: JWKSet
    }

    private let store: any KeyValueStore
    private let client: AppleIDClient

    public init(store: any KeyValueStore, client: AppleIDClient) {
        self.store = store
        self.client = client
    }

    public func key(for kid: String, now: Date) throws(IdentityTokenError) -> JWK {
        let cached = readCache()
        if let cached, let key = cached.keys.key(withID: kid) {
            let age = now.millisecondsSince1970 - cached.fetchedAt
            if age >= 0, age < Self.freshFor.wholeMilliseconds { return key }
            // Stale: refresh if it is our turn and Apple answers; otherwise the cached key serves.
            guard mayRefresh(), let fetched = try? fetch(now: now) else { return key }
            return fetched.key(withID: kid) ?? key
        }
        if cached != nil {
            guard mayRefresh() else {
                throw IdentityTokenError(.unknownKey, "no key with kid \(kid.prefix(64)); Apple's keys were refreshed less than a minute ago")
            }
        }
        let fetched: JWKSet
        do {
            fetched = try fetch(now: now)
        } catch {
            throw IdentityTokenError(.keysUnavailable, "Apple's keys cannot be fetched: \(error.reason)")
        }
        guard let key = fetched.key(withID: kid) else {
            throw IdentityTokenError(.unknownKey, "no key with kid \(kid.prefix(64)) in Apple's key set")
        }
        return key
    }

    private func readCache() -> CachedKeySet? {
        guard let bytes = try? store.get(StoreKeys.appleKeySet)?.bytes else { return nil }
        return try? JSONDecoder().decode(CachedKeySet.self, from: Data(bytes))
    }

    /// True for the one caller per interval that may ask Apple again. A store that cannot be
    /// reached gives no turn: without the shared limit nothing bounds the requests.
    private func mayRefresh() -> Bool {
        (try? store.setIfAbsent(StoreKeys.appleKeySetRefresh, Array("1".utf8), expiresIn: Self.refreshInterval)) ?? false
    }

    private func fetch(now: Date) throws(AppleIDError) -> JWKSet {
        let keys = try client.keys()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        if let bytes = try? encoder.encode(CachedKeySet(fetchedAt: now.millisecondsSince1970, keys: keys)) {
            // A cache that cannot be written only costs the next process a fetch.
            try? store.set(StoreKeys.appleKeySet, Array(bytes), expiresIn: Self.keptFor)
        }
        return keys
    }
}
