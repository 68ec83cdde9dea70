import Foundation
import OpenSSLCrypto
import StorekeeperCore
import Testing

/// A sign-in flow against `RefreshServer`, for the tests below.
func makeTestFlow(store: MemoryStore, dataKey: AESGCMKey?, server: RefreshServer) throws -> SignInFlow {
    let key = try ECPrivateKey(pem: String(contentsOfFile: "\(TestPKI.directory)/siwa-key.p8", encoding: .utf8))
    let keys = AppleIDTestKeys.shared
    return SignInFlow(
        verifier: IdentityTokenVerifier(configuration: .init(clientIds: ["com.example.web"]), keys: StaticKeyProvider(JWKSet(keys: [keys.jwk]))),
        client: AppleIDClient(baseURL: "https://appleid.example", http: { server }),
        clientSecret: ClientSecret(teamId: "T", keyId: "K", key: key),
        accounts: AccountRepository(store: store, dataKey: dataKey), sessions: SessionRepository(store: store))
}

@Suite("Sign in with Apple: unreadable refresh tokens")
struct UnreadableRefreshTokenTests {
    let now = Date()

    @Test func aTokenSealedUnderAnotherKeyIsAsGoodAsNoneForSessionsAndDeletion() throws {
        let store = MemoryStore()
        let oldKey = try AESGCMKey(bytes: Array(repeating: 3, count: 32))
        let newKey = try AESGCMKey(bytes: Array(repeating: 4, count: 32))
        let (account, _) = try AccountRepository(store: store, dataKey: oldKey).findOrCreate(sub: "sub-rekeyed", now: now)
        try AccountRepository(store: store, dataKey: oldKey).storeRefreshToken("r-old", clientId: "com.example.web", userId: account.userId, now: now)
        let accounts = AccountRepository(store: store, dataKey: newKey)
        #expect(try accounts.keptRefreshToken(userId: account.userId) == .unreadable)
        #expect(try accounts.keptRefreshToken(userId: "nobody") == .none)

        let server = RefreshServer()
        let flow = try makeTestFlow(store: store, dataKey: newKey, server: server)
        let (sessionId, _) = try SessionRepository(store: store).open(userId: account.userId, now: now)
        #expect(try flow.checkRefreshToken(userId: account.userId, now: now) == .skipped)
        #expect(server.requests.isEmpty)
        #expect(try SessionRepository(store: store).session(id: sessionId, now: now) != nil)

        let revocation = try flow.revokeAndDelete(userId: account.userId, now: now)
        #expect(!revocation.revokedAtApple && revocation.refreshTokenUnreadable)
        #expect(revocation.deletion.accountDeleted && revocation.deletion.refreshTokenDeleted)
        #expect(server.requests.isEmpty)
        #expect(try accounts.account(userId: account.userId) == nil)
        #expect(try store.get(StoreKeys.appleRefreshToken(account.userId)) == nil)
    }

    @Test func aDamagedRecordIsUnreadableToo() throws {
        let store = MemoryStore()
        let key = try AESGCMKey(bytes: Array(repeating: 5, count: 32))
        try store.set(StoreKeys.appleRefreshToken("u1"), Array("not json".utf8), expiresIn: nil)
        #expect(try AccountRepository(store: store, dataKey: key).keptRefreshToken(userId: "u1") == .unreadable)
    }
}
