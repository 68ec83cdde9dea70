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

@Suite("Sign in with Apple: a process killed mid-way")
struct KilledMidwayTests {
    let now = Date()

    @Test(arguments: ["appstore:token:", "siwa:sub:"])
    func aFirstSignInKilledAnywhereEndsLinkedOnTheNextTry(_ killedAt: String) throws {
        let store = MemoryStore()
        let accounts = AccountRepository(store: store, dataKey: nil)
        store.killAtWrite = { $0.hasPrefix(killedAt) }
        #expect(throws: StoreError.self) { try accounts.findOrCreate(sub: "sub-killed", now: now) }
        store.restart()
        let (account, _) = try accounts.findOrCreate(sub: "sub-killed", now: now)
        #expect(try EntitlementRepository(store: store).user(ofAppAccountToken: account.appAccountToken) == account.userId)
        #expect(try accounts.userId(sub: "sub-killed") == account.userId)
    }

    @Test func aNewAccountIsWrittenOnceAndComplete() throws {
        let store = MemoryStore()
        let accounts = AccountRepository(store: store, dataKey: nil)
        let (account, created) = try accounts.findOrCreate(sub: "sub-named", now: now) { $0.givenName = "Once"; $0.email = "once@example.com" }
        #expect(created && account.givenName == "Once")
        let stored = try #require(try store.get(StoreKeys.account(account.userId)))
        #expect(stored.version == 1)
        #expect(try accounts.account(userId: account.userId)?.givenName == "Once")
        #expect(try accounts.account(userId: account.userId)?.email == "once@example.com")
        // Found again: not refilled, not rewritten.
        let (again, createdAgain) = try accounts.findOrCreate(sub: "sub-named", now: now) { $0.givenName = "Twice" }
        #expect(!createdAgain && again.givenName == "Once")
    }
}

extension AccountTests {
    @Test(arguments: [":account", "siwa:sub:"])
    func aDeletionKilledMidwayIsFinishedByApplesRetry(_ killedAt: String) throws {
        let store = MemoryStore()
        let accounts = AccountRepository(store: store, dataKey: dataKey)
        var (account, _) = try accounts.findOrCreate(sub: "sub-delete-killed", now: now)
        account.email = "kept.too.long@example.com"
        try accounts.save(account)
        let event = try notification("account-delete", sub: "sub-delete-killed", jti: "jti-killed", email: nil)
        let processor = AccountEventProcessor(store: store)

        store.killAtWrite = { $0.hasSuffix(killedAt) || $0.hasPrefix(killedAt) }
        #expect(throws: StoreError.self) { try processor.process(event, now: now) }
        store.restart()
        #expect(try processor.process(event, now: now).outcome == .processed)
        #expect(try accounts.account(userId: account.userId) == nil)
        #expect(try accounts.userId(sub: "sub-delete-killed") == nil)
        #expect(try accounts.wasDeleted(userId: account.userId))
        #expect(!store.allValues.contains { String(decoding: $0, as: UTF8.self).contains("kept.too.long") })
    }

    @Test func aSignInAfterADeletionKilledBeforeTheIndexMakesANewUser() throws {
        let store = MemoryStore()
        let accounts = AccountRepository(store: store, dataKey: dataKey)
        let (old, _) = try accounts.findOrCreate(sub: "sub-again", now: now)
        store.killAtWrite = { $0.hasPrefix("siwa:sub:") }
        #expect(throws: StoreError.self) { try accounts.delete(userId: old.userId, sessions: SessionRepository(store: store), now: now) }
        store.restart()
        let (fresh, created) = try accounts.findOrCreate(sub: "sub-again", now: now)
        #expect(created && fresh.userId != old.userId)
        #expect(try accounts.userId(sub: "sub-again") == fresh.userId)
    }
}

@Suite("Sign in with Apple: user ids from callers")
struct UserIdFormatTests {
    @Test func theIdsStorekeeperMakesPassAndNothingElse() throws {
        let (account, _) = try AccountRepository(store: MemoryStore(), dataKey: nil).findOrCreate(sub: "s", now: Date())
        #expect(AccountRepository.isUserId(account.userId))
        for bad in ["", "nobody", "nobody:account", String(repeating: "A", count: 32), String(repeating: "a", count: 31),
                    String(repeating: "a", count: 33), "0123456789abcdef0123456789abcde:", "0123456789abcdef0123456789abcdeg"] {
            #expect(!AccountRepository.isUserId(bad), "\(bad)")
        }
    }
}

@Suite("Sign in with Apple: the client secret's clock")
struct ClientSecretClockTests {
    @Test func theClientSecretIsDatedByTheWallClockWhenTheFunctionsClockIsPinned() throws {
        let store = MemoryStore()
        let dataKey = try AESGCMKey(bytes: Array(repeating: 6, count: 32))
        let server = RefreshServer()
        let flow = try makeTestFlow(store: store, dataKey: dataKey, server: server)
        let pinned = Date(timeIntervalSince1970: 1_600_000_000)
        try AccountRepository(store: store, dataKey: dataKey).storeRefreshToken("r", clientId: "com.example.web", userId: "u1", now: pinned)
        #expect(try flow.checkRefreshToken(userId: "u1", now: pinned) == .valid)
        let body = try #require(server.requests.first)
        let secret = try #require(URLComponents(string: "?" + body)?.queryItems?.first { $0.name == "client_secret" }?.value)
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(try CompactJWS(parsing: secret).payload)) as? [String: Any])
        let iat = try #require(claims["iat"] as? Int)
        #expect(abs(Double(iat) - Date().timeIntervalSince1970) < 3600, "iat \(iat) is not today")
    }
}

@Suite("Sign in with Apple: the daily turn comes before the token")
struct RefreshTurnFirstTests {
    @Test func withoutTheTurnNothingIsReadOrOpened() throws {
        let store = MemoryStore()
        let dataKey = try AESGCMKey(bytes: Array(repeating: 9, count: 32))
        let accounts = AccountRepository(store: store, dataKey: dataKey)
        try accounts.storeRefreshToken("r", clientId: "com.example.web", userId: "u1", now: Date())
        #expect(try accounts.mayCheckRefreshToken(userId: "u1"))
        // Without a data key, reading the token would throw: the skipped check never reads it.
        let server = RefreshServer()
        let flow = try makeTestFlow(store: store, dataKey: nil, server: server)
        #expect(try flow.checkRefreshToken(userId: "u1", now: Date()) == .skipped)
        #expect(server.requests.isEmpty)
    }

    @Test func aKeyThatCannotBeLoadedIsNotNeededUntilASecretIsMade() throws {
        struct Unloadable: Error {}
        let secret = ClientSecret(teamId: "T", keyId: "K", loadingKey: { throw Unloadable() })
        #expect(throws: Unloadable.self) { try secret.make(clientId: "com.example.web", now: Date()) }
    }
}
