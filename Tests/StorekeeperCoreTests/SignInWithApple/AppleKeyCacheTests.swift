import Foundation
import OpenSSLCrypto
import StorekeeperCore
import Testing

/// An HTTPClient that answers /auth/keys from a settable key set, or fails, and counts calls.
final class KeysServer: HTTPClient, @unchecked Sendable {
    var keys: JWKSet
    var down = false
    private(set) var requests = 0

    init(_ keys: JWKSet) { self.keys = keys }

    func send(_ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        requests += 1
        if down { throw HTTPError(.connectionFailed, "connection refused") }
        let body = (try? JSONEncoder().encode(keys)).map(Array.init) ?? []
        return HTTPResponse(status: 200, headers: [], body: body)
    }
}

@Suite("Sign in with Apple: Apple's keys cached in the store")
struct AppleKeyCacheTests {
    let keys = AppleIDTestKeys.shared

    func cache(_ store: MemoryStore, _ server: KeysServer) -> AppleKeyCache {
        AppleKeyCache(store: store, client: AppleIDClient(baseURL: "https://appleid.example", http: { server }))
    }

    @Test func fetchedOnceThenServedFromTheStore() throws {
        let store = MemoryStore()
        let server = KeysServer(JWKSet(keys: [keys.jwk]))
        let now = Date()
        _ = try cache(store, server).key(for: keys.kid, now: now)
        _ = try cache(store, server).key(for: keys.kid, now: now.addingTimeInterval(60))
        #expect(server.requests == 1)
        #expect(try store.get(StoreKeys.appleKeySet) != nil)
    }

    @Test func anUnknownKidRefreshesOnceAMinuteAtMost() throws {
        let store = MemoryStore()
        let server = KeysServer(JWKSet(keys: [keys.jwk]))
        let now = Date()
        _ = try cache(store, server).key(for: keys.kid, now: now)
        // Apple rotates: the new kid appears after one refresh.
        let rotated = AppleIDTestKeys.jwk(try RSAPrivateKey.generate().publicKey, kid: "rotated")
        server.keys = JWKSet(keys: [rotated, keys.jwk])
        #expect(try cache(store, server).key(for: "rotated", now: now).kid == "rotated")
        #expect(server.requests == 2)
        // Made-up kids within the minute cost Apple nothing.
        for attempt in 0..<5 {
            #expect(throws: IdentityTokenError(.unknownKey, "")) { try cache(store, server).key(for: "made-up-\(attempt)", now: now) }
        }
        #expect(server.requests == 2)
        // After the minute, one more refresh is allowed.
        try store.delete(StoreKeys.appleKeySetRefresh)
        #expect(throws: IdentityTokenError(.unknownKey, "")) { try cache(store, server).key(for: "made-up", now: now) }
        #expect(server.requests == 3)
    }

    @Test func aStaleSetStillServesWhenAppleIsDown() throws {
        let store = MemoryStore()
        let server = KeysServer(JWKSet(keys: [keys.jwk]))
        let now = Date()
        _ = try cache(store, server).key(for: keys.kid, now: now)
        server.down = true
        let later = now.addingTimeInterval(2 * 3600)
        #expect(try cache(store, server).key(for: keys.kid, now: later).kid == keys.kid)
    }

    @Test func noCacheAndAppleDownIsRetryable() throws {
        let server = KeysServer(JWKSet(keys: [keys.jwk]))
        server.down = true
        do {
            _ = try cache(MemoryStore(), server).key(for: keys.kid, now: Date())
            Issue.record("expected keys_unavailable")
        } catch {
            #expect(error.code == "keys_unavailable")
            #expect(error.isRetryable)
        }
    }
}
