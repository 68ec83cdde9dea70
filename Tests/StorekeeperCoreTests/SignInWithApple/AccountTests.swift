import Foundation
import OpenSSLCrypto
import StorekeeperCore
import Testing

@Suite("Sign in with Apple: accounts, sessions, states, account events")
struct AccountTests {
    let dataKey = try! AESGCMKey(bytes: Array(repeating: 7, count: 32))
    let now = Date()

    @Test func oneUserPerSubWithAnAppAccountTokenThatLinksPurchases() throws {
        let store = MemoryStore()
        let accounts = AccountRepository(store: store, dataKey: dataKey)
        let (first, created) = try accounts.findOrCreate(sub: "sub-1", now: now)
        let (again, createdAgain) = try accounts.findOrCreate(sub: "sub-1", now: now)
        #expect(created && !createdAgain)
        #expect(first.userId == again.userId)
        #expect(UUID(uuidString: first.appAccountToken) != nil)
        #expect(try EntitlementRepository(store: store).user(ofAppAccountToken: first.appAccountToken) == first.userId)
    }

    @Test func refreshTokensAreSealedAndBoundToTheirUser() throws {
        let store = MemoryStore()
        let accounts = AccountRepository(store: store, dataKey: dataKey)
        try accounts.storeRefreshToken("r-secret-token", clientId: "com.example.web", userId: "u1", now: now)
        #expect(!store.allValues.contains { String(decoding: $0, as: UTF8.self).contains("r-secret-token") })
        #expect(try accounts.refreshToken(userId: "u1")?.token == "r-secret-token")
        // Moved to another user, the box no longer opens.
        try store.set(StoreKeys.appleRefreshToken("u2"), try #require(try store.get(StoreKeys.appleRefreshToken("u1"))).bytes, expiresIn: nil)
        #expect(throws: CryptoError.self) { try accounts.refreshToken(userId: "u2") }
        // Another data key cannot open it either.
        #expect(throws: CryptoError.self) {
            try AccountRepository(store: store, dataKey: try AESGCMKey(bytes: Array(repeating: 8, count: 32))).refreshToken(userId: "u1")
        }
    }

    @Test func aStateWorksOnce() throws {
        let states = AuthorizationStateRepository(store: MemoryStore())
        let (state, nonce, browser) = try states.begin(now: now)
        guard case .consumed(let pending) = try states.consume(state, browserSecret: browser) else {
            Issue.record("the state was not consumed")
            return
        }
        #expect(pending.nonce == nonce)
        #expect(try states.consume(state, browserSecret: browser) == .unknown)
        #expect(try states.consume("not-a-state", browserSecret: browser) == .unknown)
    }

    @Test func aStateIsSpentOnlyByTheBrowserThatStartedIt() throws {
        let store = MemoryStore()
        let states = AuthorizationStateRepository(store: store)
        let (state, _, browser) = try states.begin(now: now)
        let (_, _, otherBrowser) = try states.begin(now: now)
        #expect(browser.count == 64 && browser != otherBrowser)
        // Only the digest is kept: a copy of the store cannot forge the cookie.
        #expect(!store.allValues.contains { String(decoding: $0, as: UTF8.self).contains(browser) })
        #expect(try states.consume(state, browserSecret: nil) == .otherBrowser)
        #expect(try states.consume(state, browserSecret: otherBrowser) == .otherBrowser)
        #expect(try states.consume(state, browserSecret: "") == .otherBrowser)
        // Refused posts spent nothing: the right browser still finishes, once.
        guard case .consumed = try states.consume(state, browserSecret: browser) else {
            Issue.record("the legitimate browser could not finish")
            return
        }
        #expect(try states.consume(state, browserSecret: browser) == .unknown)
    }

    @Test func aStateFromBeforeBrowserBindingIsRefused() throws {
        let store = MemoryStore()
        let state = String(repeating: "ab", count: 32)
        try store.set(StoreKeys.authorizationState(state), Array(#"{"createdAt":1,"nonce":"n"}"#.utf8), expiresIn: nil)
        #expect(try AuthorizationStateRepository(store: store).consume(state, browserSecret: "anything") == .otherBrowser)
    }

    @Test func sessionsAreKeptOnlyAsDigests() throws {
        let store = MemoryStore()
        let sessions = SessionRepository(store: store)
        let (id, _) = try sessions.open(userId: "u1", now: now)
        #expect(try sessions.session(id: id, now: now)?.userId == "u1")
        #expect(!store.keys.contains { $0.contains(id) })
        #expect(try sessions.endAll(userId: "u1") == 1)
        #expect(try sessions.session(id: id, now: now) == nil)
    }

    @Test func deletionRemovesPersonalDataAndKeepsPurchaseLinks() throws {
        let store = MemoryStore()
        let accounts = AccountRepository(store: store, dataKey: dataKey)
        var (account, _) = try accounts.findOrCreate(sub: "001234.personal-sub.0001", now: now)
        account.email = "jane.personal@example.com"
        account.givenName = "Janeway"
        account.familyName = "Personalname"
        try accounts.save(account)
        try accounts.storeRefreshToken("r-token", clientId: "com.example.web", userId: account.userId, now: now)
        let sessions = SessionRepository(store: store)
        _ = try sessions.open(userId: account.userId, now: now)
        _ = try sessions.open(userId: account.userId, now: now)

        let deletion = try accounts.delete(userId: account.userId, sessions: sessions, now: now)
        #expect(deletion.sessionsEnded == 2 && deletion.refreshTokenDeleted && deletion.accountDeleted)
        let everything = (store.keys + store.allValues.map { String(decoding: $0, as: UTF8.self) }).joined(separator: "\n")
        for personal in ["jane.personal@example.com", "Janeway", "Personalname", "001234.personal-sub.0001"] {
            #expect(!everything.contains(personal), "\(personal) is still in the store")
        }
        #expect(try EntitlementRepository(store: store).user(ofAppAccountToken: account.appAccountToken) == account.userId)
        #expect(try accounts.wasDeleted(userId: account.userId))
        // Again: nothing left to do, nothing fails.
        #expect(try accounts.delete(userId: account.userId, sessions: sessions, now: now).accountDeleted == false)
    }

    /// An Apple-signed notification, verified; `eventTime` (ms) defaults to `now`.
    func notification(_ type: String, sub: String, jti: String, email: String? = nil,
                      eventTime: Int64? = nil, omitEventTime: Bool = false, iat: Int? = nil) throws -> AppleIDNotification {
        var events: [String: Any] = ["type": type, "sub": sub]
        if !omitEventTime { events["event_time"] = eventTime ?? now.millisecondsSince1970 }
        if let email { events["email"] = email }
        let eventsText = String(decoding: try JSONSerialization.data(withJSONObject: events), as: UTF8.self)
        let keys = AppleIDTestKeys.shared
        let token = try keys.token(["iss": "https://appleid.apple.com", "aud": "com.example.web", "iat": iat ?? Int(now.timeIntervalSince1970),
                                    "jti": jti, "events": eventsText])
        let verifier = IdentityTokenVerifier(configuration: .init(clientIds: ["com.example.web"]), keys: StaticKeyProvider(JWKSet(keys: [keys.jwk])))
        return try verifier.verifyNotification(token, now: now)
    }

    @Test(arguments: ["email-disabled", "email-enabled", "consent-revoked", "account-delete", "account-deleted"])
    func everyEventActsOnceAndDuplicatesDoNothing(_ type: String) throws {
        let store = MemoryStore()
        let accounts = AccountRepository(store: store, dataKey: dataKey)
        let (account, _) = try accounts.findOrCreate(sub: "sub-events", now: now)
        try accounts.storeRefreshToken("r-token", clientId: "com.example.web", userId: account.userId, now: now)
        let sessions = SessionRepository(store: store)
        let (sessionId, _) = try sessions.open(userId: account.userId, now: now)
        let processor = AccountEventProcessor(store: store)

        let event = try notification(type, sub: "sub-events", jti: "jti-\(type)", email: "relay@privaterelay.appleid.com")
        #expect(try processor.process(event, now: now).outcome == .processed)
        #expect(try processor.process(event, now: now).outcome == .duplicate)

        switch type {
        case "email-disabled", "email-enabled":
            #expect(try accounts.account(userId: account.userId)?.emailRelayEnabled == (type == "email-enabled"))
            #expect(try accounts.account(userId: account.userId)?.email == "relay@privaterelay.appleid.com")
            #expect(try sessions.session(id: sessionId, now: now) != nil)
        case "consent-revoked":
            #expect(try sessions.session(id: sessionId, now: now) == nil)
            #expect(try accounts.refreshToken(userId: account.userId) == nil)
            #expect(try accounts.account(userId: account.userId) != nil)
        default:
            #expect(try accounts.account(userId: account.userId) == nil)
            #expect(try accounts.userId(sub: "sub-events") == nil)
            #expect(try sessions.session(id: sessionId, now: now) == nil)
            #expect(try accounts.wasDeleted(userId: account.userId))
        }
    }

    @Test func unknownTypesAndUsersAreAcknowledged() throws {
        let processor = AccountEventProcessor(store: MemoryStore())
        #expect(try processor.process(try notification("something-new", sub: "x", jti: "j1"), now: now).outcome == .ignored)
        #expect(try processor.process(try notification("email-enabled", sub: "nobody", jti: "j2"), now: now).outcome == .unknownUser)
    }
}

@Suite("Sign in with Apple: client secret and Apple's errors")
struct ClientSecretTests {
    @Test func theClientSecretHasApplesShape() throws {
        let key = try ECPrivateKey(pem: String(contentsOfFile: "\(TestPKI.directory)/siwa-key.p8", encoding: .utf8))
        let now = Date(timeIntervalSince1970: 1_780_272_000)
        let secret = try ClientSecret(teamId: "TEAM123456", keyId: "KEY1234567", key: key).make(clientId: "com.example.web", now: now)
        let jws = try CompactJWS(parsing: secret)
        #expect(jws.header.alg == "ES256" && jws.header.kid == "KEY1234567")
        #expect(try key.publicKey.isValidES256Signature(jws.signature, for: jws.signingInput))
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(jws.payload)) as? [String: Any])
        #expect(claims["iss"] as? String == "TEAM123456")
        #expect(claims["sub"] as? String == "com.example.web")
        #expect(claims["aud"] as? String == "https://appleid.apple.com")
        #expect(claims["iat"] as? Int == 1_780_272_000)
        #expect(claims["exp"] as? Int == 1_780_272_300)
    }

    @Test(arguments: AppleIDError.Kind.allCases.filter { ![.other, .unavailable, .invalidResponse].contains($0) })
    func oauthErrorsAreTyped(_ kind: AppleIDError.Kind) {
        let error = AppleIDError.fromOAuth(kind.rawValue, description: nil)
        #expect(error.kind == kind)
        #expect(!error.isRetryable)
    }

    @Test func invalidClientExplainsItsUsualCauses() {
        let reason = AppleIDError.fromOAuth("invalid_client", description: nil).reason
        #expect(reason.contains("SIWA_KEY_ID") && reason.contains("SIWA_TEAM_ID") && reason.contains("client id"))
        #expect(AppleIDError.fromOAuth("brand_new_error", description: nil).kind == .other)
    }
}

/// Answers /auth/token refresh grants: 200 while `valid`, else Apple's invalid_grant; counts calls.
final class RefreshServer: HTTPClient, @unchecked Sendable {
    var valid = true
    private(set) var requests: [String] = []

    func send(_ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        requests.append(String(decoding: request.body, as: UTF8.self))
        if valid { return HTTPResponse(status: 200, headers: [], body: Array(#"{"access_token":"a","token_type":"Bearer","expires_in":3600}"#.utf8)) }
        return HTTPResponse(status: 400, headers: [], body: Array(#"{"error":"invalid_grant"}"#.utf8))
    }
}

@Suite("Sign in with Apple: the daily refresh-token check")
struct RefreshCheckTests {
    @Test func atMostOnceADayAndARevokedTokenEndsSessions() throws {
        let store = MemoryStore()
        let dataKey = try AESGCMKey(bytes: Array(repeating: 1, count: 32))
        let accounts = AccountRepository(store: store, dataKey: dataKey)
        let sessions = SessionRepository(store: store)
        let server = RefreshServer()
        let key = try ECPrivateKey(pem: String(contentsOfFile: "\(TestPKI.directory)/siwa-key.p8", encoding: .utf8))
        let keys = AppleIDTestKeys.shared
        let flow = SignInFlow(
            verifier: IdentityTokenVerifier(configuration: .init(clientIds: ["com.example.web"]), keys: StaticKeyProvider(JWKSet(keys: [keys.jwk]))),
            client: AppleIDClient(baseURL: "https://appleid.example", http: { server }),
            clientSecret: ClientSecret(teamId: "T", keyId: "K", key: key), accounts: accounts, sessions: sessions)
        let now = Date()
        try accounts.storeRefreshToken("r-token", clientId: "com.example.web", userId: "u1", now: now)
        let (sessionId, _) = try sessions.open(userId: "u1", now: now)

        #expect(try flow.checkRefreshToken(userId: "u1", now: now) == .valid)
        #expect(server.requests.count == 1 && server.requests[0].contains("grant_type=refresh_token"))
        #expect(try flow.checkRefreshToken(userId: "u1", now: now) == .skipped)
        #expect(server.requests.count == 1)

        // A day later Apple says the user revoked the app.
        try store.delete(StoreKeys.appleRefreshCheck("u1"))
        server.valid = false
        #expect(try flow.checkRefreshToken(userId: "u1", now: now) == .revoked)
        #expect(try sessions.session(id: sessionId, now: now) == nil)
        #expect(try accounts.refreshToken(userId: "u1") == nil)
    }
}

@Suite("Sign in with Apple: concurrent first sign-ins")
struct ConcurrentFirstSignInTests {
    @Test func onePersonSigningInEightTimesAtOnceIsOneUser() async throws {
        let store = MemoryStore()
        let results = try await withThrowingTaskGroup(of: AppleAccount.self) { group in
            for _ in 0..<8 {
                group.addTask { try AccountRepository(store: store, dataKey: nil).findOrCreate(sub: "same-sub", now: Date()).account }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(results.map(\.userId)).count == 1)
        #expect(Set(results.map(\.appAccountToken)).count == 1)
        #expect(store.keys.filter { $0.hasSuffix(":account") }.count == 1)
    }
}
