import Foundation
import HTTPTransport
import SQLiteStore
import StorekeeperCore
import Testing
import TestSupport

/// A deployment for Sign in with Apple: an SQLite store, the fake Apple ID server, and
/// lighttpd serving the siwa-* functions as CGI with SIWA_BASE_URL pointed at the fake.
final class SignInDeployment: @unchecked Sendable {
    static let appURL = "https://app.example/home"
    /// The public callback URL Apple knows; the test posts Apple's form to the gateway instead,
    /// as a TLS-terminating proxy in front of it would.
    static let redirectURI = "https://app.example/auth/apple/callback"

    let store: TestStore
    let fake: FakeAppleID
    let gateway: Gateway
    let adminToken = "siwa-admin-" + UUID().uuidString
    let environment: [String: String]

    init(_ backend: Backend = .sqlite, overrides: [String: String] = [:]) throws {
        store = try TestStore(backend)
        fake = try FakeAppleID()
        var environment = E2E.environment(storeURL: store.url, adminToken: adminToken)
        environment["SIWA_TEAM_ID"] = fake.teamId
        environment["SIWA_KEY_ID"] = fake.keyId
        environment["SIWA_PRIVATE_KEY"] = E2E.pki.appendingPathComponent("siwa-key.p8").path
        environment["SIWA_CLIENT_IDS"] = fake.clientIds.joined(separator: ",")
        environment["SIWA_REDIRECT_URI"] = Self.redirectURI
        environment["SIWA_APP_URL"] = Self.appURL
        environment["SIWA_BASE_URL"] = fake.baseURL
        environment["STOREKEEPER_DATA_KEY"] = String(repeating: "5a", count: 32)
        environment.merge(overrides) { $1 }
        self.environment = environment
        gateway = try Gateway.start(environment: environment)
    }

    deinit {
        gateway.stop()
        fake.stop()
    }

    struct Reply: CustomStringConvertible {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
        func header(_ name: String) -> String? { headers.first { $0.0 == name.lowercased() }?.1 }
        func allHeaders(_ name: String) -> [String] { headers.filter { $0.0 == name.lowercased() }.map(\.1) }
        var description: String { "\(status) \(text.prefix(500))" }
    }

    func send(_ method: String, _ url: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> Reply {
        let response = try CurlHTTPClient().send(HTTPRequest(method: method, url: url, headers: headers, body: body, timeout: .seconds(60)))
        return Reply(status: response.status, headers: response.headers, body: response.body)
    }

    /// POST JSON to the gateway, with the admin token for internal routes.
    func post(_ route: String, _ object: [String: Any], admin: Bool = false) throws -> Reply {
        var headers = [("Content-Type", "application/json")]
        if admin { headers.append(("Authorization", "Bearer \(adminToken)")) }
        return try send("POST", gateway.baseURL + route, headers: headers, body: Array(try JSONSerialization.data(withJSONObject: object)))
    }

    /// A control call to the fake.
    @discardableResult
    func control(_ path: String, _ object: [String: Any] = [:]) throws -> [String: Any] {
        let reply = try send("POST", fake.baseURL + path, headers: [("Content-Type", "application/json")],
                             body: Array(try JSONSerialization.data(withJSONObject: object)))
        return reply.json
    }

    /// What the fake received at /auth/*.
    func received() throws -> [[String: Any]] {
        let reply = try send("GET", fake.baseURL + "/control/received")
        return (try JSONSerialization.jsonObject(with: Data(reply.body)) as? [[String: Any]]) ?? []
    }

    // MARK: The browser's part of the web flow

    static let preAuthorizationCookie = "__Host-storekeeper_siwa"

    /// The pre-authorization cookie the last `start()` set: the test's one browser keeps it,
    /// and `callback` sends it back unless told otherwise.
    private let lock = NSLock()
    private var browserCookie: String?
    var lastBrowserCookie: String? { lock.withLock { browserCookie } }

    /// GET /auth/apple/start: the 302 to Apple's authorize page, and its Set-Cookie headers.
    func begin() throws -> (url: URLComponents, setCookies: [String]) {
        let reply = try send("GET", gateway.baseURL + "/auth/apple/start")
        guard reply.status == 302, let location = reply.header("location"), let url = URLComponents(string: location) else {
            throw Binaries.Failure("start: \(reply)")
        }
        return (url, reply.allHeaders("set-cookie"))
    }

    /// `begin`, the browser keeping the pre-authorization cookie.
    func start() throws -> URLComponents {
        let (url, setCookies) = try begin()
        let value = setCookies.lazy.compactMap { Self.cookieValue($0, name: Self.preAuthorizationCookie) }.first
        lock.withLock { browserCookie = value }
        return url
    }

    /// The browser at Apple: the authorize page's auto-submitting form, read as a browser would.
    func authorize(_ url: URLComponents) throws -> (action: String, fields: [String: String]) {
        let reply = try send("GET", try #require(url.string))
        guard reply.status == 200 else { throw Binaries.Failure("authorize: \(reply)") }
        let page = reply.text
        let action = try #require(Self.firstMatch(#"<form method="POST" action="([^"]*)""#, in: page))
        var fields: [String: String] = [:]
        let pattern = try NSRegularExpression(pattern: #"<input type="hidden" name="([^"]*)" value="([^"]*)" />"#)
        for match in pattern.matches(in: page, range: NSRange(page.startIndex..., in: page)) {
            guard let name = Range(match.range(at: 1), in: page), let value = Range(match.range(at: 2), in: page) else { continue }
            fields[Self.unescape(String(page[name]))] = Self.unescape(String(page[value]))
        }
        return (Self.unescape(action), fields)
    }

    /// Which pre-authorization cookie the form_post carries.
    enum BrowserCookie {
        /// The one the last `start()` set (the browser that started the sign-in).
        case lastStarted
        /// None: a browser that never started one (the login-CSRF victim).
        case none
        /// A whole `Cookie` header of the test's choosing.
        case header(String)
    }

    /// The browser's form_post, sent to the gateway.
    func callback(_ fields: [String: String], cookie: BrowserCookie = .lastStarted) throws -> Reply {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
            .joined(separator: "&")
        var headers = [("Content-Type", "application/x-www-form-urlencoded"), ("Origin", "https://appleid.apple.com")]
        switch cookie {
        case .lastStarted:
            if let value = lastBrowserCookie { headers.append(("Cookie", "\(Self.preAuthorizationCookie)=\(value)")) }
        case .none:
            break
        case .header(let header):
            headers.append(("Cookie", header))
        }
        return try send("POST", gateway.baseURL + "/auth/apple/callback", headers: headers, body: Array(body.utf8))
    }

    /// The whole web flow; returns the callback's reply and the form Apple posted.
    func signInOnTheWeb() throws -> (reply: Reply, form: [String: String]) {
        let form = try authorize(try start()).fields
        return (try callback(form), form)
    }

    /// What an iOS app gets from Apple, then POST /auth/apple/native.
    func signInNatively(rawNonce: String = UUID().uuidString, clientId: String = "com.example.storekeeper",
                        sentNonce: String? = nil, fullName: [String: String]? = nil) throws -> Reply {
        let credential = try control("/control/native", ["client_id": clientId, "nonce": IdentityTokenVerifier.hashedNonce(rawNonce)])
        var request: [String: Any] = [
            "identityToken": try #require(credential["identityToken"] as? String),
            "authorizationCode": try #require(credential["authorizationCode"] as? String),
            "rawNonce": sentNonce ?? rawNonce,
        ]
        if let fullName { request["fullName"] = fullName }
        return try post("/auth/apple/native", request)
    }

    func accounts() throws -> AccountRepository {
        AccountRepository(store: try store.open(), dataKey: nil)
    }

    /// Every live key, value and set member in the SQLite file, as text.
    func storeContents() throws -> String {
        let path = String(store.url.dropFirst("sqlite:".count))
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        // Values are BLOBs (a .dump would show them as hex): read them as text.
        let query = "SELECT key || ' ' || CAST(value AS TEXT) FROM kv; SELECT key || ' ' || member FROM set_members; "
            + "SELECT id || ' ' || CAST(payload AS TEXT) FROM jobs;"
        let dump = try SpawnedProcess.spawn("/usr/bin/sqlite3", [path, query], stdout: output.path, stderr: output.path)
        _ = dump.waitOrKill(limit: 30)
        return try String(contentsOf: output, encoding: .utf8)
    }

    static func firstMatch(_ pattern: String, in text: String) -> String? {
        guard let expression = try? NSRegularExpression(pattern: pattern),
              let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range(at: 1), in: text) else { return nil }
        return String(text[range])
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#x27;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    static func cookieValue(_ setCookie: String?, name: String = "storekeeper_session") -> String? {
        guard let setCookie, setCookie.hasPrefix(name + "=") else { return nil }
        return String(setCookie.dropFirst(name.count + 1).prefix { $0 != ";" })
    }
}

extension EndToEnd {
    @Suite("Sign in with Apple through lighttpd against a fake Apple ID server",
           .enabled(if: FakeAppleID.python != nil, "python3 with the cryptography package is missing (make deps)"))
    struct SignInWithAppleTests {
        @Test("start → Apple's form_post → callback: 302 to the app with an HttpOnly, Secure session cookie; the state works once",
              arguments: Backend.allCases)
        func theWebFlow(_ backend: Backend) throws {
            let d = try SignInDeployment(backend)
            let authorizeURL = try d.start()
            #expect(authorizeURL.string?.hasPrefix(d.fake.baseURL + "/auth/authorize?") == true)
            let query = Dictionary(uniqueKeysWithValues: (authorizeURL.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(query["response_type"] == "code")
            #expect(query["response_mode"] == "form_post")
            #expect(query["scope"] == "name email")
            #expect(query["client_id"] == "com.example.web")
            #expect(query["redirect_uri"] == SignInDeployment.redirectURI)
            #expect(query["state"]?.count == 64 && query["nonce"]?.count == 64)

            let (action, form) = try d.authorize(authorizeURL)
            #expect(action == SignInDeployment.redirectURI)
            #expect(form["user"]?.contains("Jane") == true, "Apple sends the name on the first authorization")
            let reply = try d.callback(form)
            #expect(reply.status == 302, "\(reply)")
            #expect(reply.header("location") == SignInDeployment.appURL)
            let cookie = try #require(reply.allHeaders("set-cookie").first { $0.hasPrefix("storekeeper_session=") })
            for attribute in ["HttpOnly", "Secure", "SameSite=Lax", "Path=/"] {
                #expect(cookie.contains(attribute), "cookie: \(cookie)")
            }
            let sessionId = try #require(SignInDeployment.cookieValue(cookie))
            let session = try #require(try SessionRepository(store: d.store.open()).session(id: sessionId, now: Date()))
            let account = try #require(try d.accounts().account(userId: session.userId))
            #expect(account.givenName == "Jane" && account.familyName == "Doe")
            #expect(account.email == "jane.doe@example.com" && account.emailVerified == true && account.isPrivateEmail == false)
            #expect(account.realUserStatus == 2)

            // The fake checked the client secret and the redirect URI.
            let token = try #require(try d.received().first { $0["path"] as? String == "/auth/token" })
            #expect(token["client_secret_ok"] as? Bool == true, "\(token)")
            #expect(token["redirect_uri"] as? String == SignInDeployment.redirectURI)

            // The same form again: the state is spent.
            let replay = try d.callback(form)
            #expect(replay.status == 400 && replay.errorCode == "invalid_state", "\(replay)")

            // A second sign-in: same user, no new name, a second session.
            let second = try d.signInOnTheWeb()
            #expect(second.form["user"] == nil)
            #expect(second.reply.status == 302)
            #expect(second.reply.json["userId"] as? String == session.userId)
            #expect(second.reply.json["newUser"] as? Bool == false)
            #expect(try d.accounts().account(userId: session.userId)?.givenName == "Jane")
        }

        @Test("Login CSRF: a form_post from another browser than the one that started the sign-in is invalid_state, spends nothing, asks Apple nothing")
        func theStateIsBoundToTheBrowserThatStartedIt() throws {
            let d = try SignInDeployment()
            let name = SignInDeployment.preAuthorizationCookie
            // The attacker starts a sign-in in their own browser and stops before the form_post.
            try d.control("/control/user", ["sub": "001666.attacker0000000000000000000.0666", "email": "attacker@example.org"])
            let (url, setCookies) = try d.begin()
            #expect(setCookies.count == 1, "siwa-start sets only the pre-authorization cookie: \(setCookies)")
            let setCookie = setCookies.first ?? ""
            // Not #require: without the binding, the forged posts below show what it prevents.
            let attackersCookie = SignInDeployment.cookieValue(setCookie, name: name) ?? "none-was-set"
            #expect(attackersCookie.count == 64, "\(setCookie)")
            for attribute in ["Path=/", "Max-Age=600", "HttpOnly", "Secure", "SameSite=None"] {
                #expect(setCookie.contains("; \(attribute)"), "\(setCookie)")
            }
            #expect(!setCookie.lowercased().contains("domain="), "a __Host- cookie has no Domain: \(setCookie)")
            let form = try d.authorize(url).fields
            let state = try #require(form["state"])
            // The victim's browser, which started a sign-in of its own (or none at all).
            let victimsCookie = SignInDeployment.cookieValue(try d.begin().setCookies.first, name: name) ?? "none-was-set-either"
            func tokenRequests() throws -> Int { try d.received().filter { $0["path"] as? String == "/auth/token" }.count }

            let forged: [(SignInDeployment.BrowserCookie, String)] = [
                (.none, "no cookie"),
                (.header("\(name)=\(victimsCookie)"), "the victim's own cookie"),
                (.header("theme=dark; \(name)=\(String(repeating: "0", count: 64)); lang=en"), "a made-up value"),
                (.header("\(name)=\(victimsCookie); \(name)=\(attackersCookie)"), "two values, one of them right"),
            ]
            for (cookie, label) in forged {
                let reply = try d.callback(form, cookie: cookie)
                #expect(reply.status == 400 && reply.errorCode == "invalid_state", "\(label): \(reply)")
                #expect(reply.allHeaders("set-cookie") == ["\(name)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=None"],
                        "\(label): no session, the pre-authorization cookie cleared")
            }
            // A forged cancellation does not spend the state either.
            let cancelled = try d.callback(["error": "user_cancelled_authorize", "state": state], cookie: .none)
            #expect(cancelled.status == 302)
            #expect(try tokenRequests() == 0, "Apple was asked nothing")
            #expect(try d.store.open().get(StoreKeys.authorizationState(state)) != nil, "the state is unspent")
            let log = d.gateway.logLines().description
            #expect(log.contains("no_browser_cookie") && log.contains("other_browser"), "the log says why")
            #expect(!log.contains(attackersCookie) && !log.contains(victimsCookie), "no cookie value reaches the log")

            // The browser that started it finishes, and its pre-authorization cookie is cleared.
            let reply = try d.callback(form, cookie: .header("\(name)=\(attackersCookie)"))
            #expect(reply.status == 302, "\(reply)")
            let cookies = reply.allHeaders("set-cookie")
            #expect(cookies.contains { $0.hasPrefix("storekeeper_session=") }, "\(cookies)")
            #expect(cookies.contains("\(name)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=None"), "\(cookies)")
            #expect(try tokenRequests() == 1)
            #expect(try d.store.open().get(StoreKeys.authorizationState(state)) == nil)
        }

        @Test("A reused code, a wrong nonce, a cancelled sign-in")
        func webFlowRefusals() throws {
            let d = try SignInDeployment()
            let first = try d.signInOnTheWeb()
            #expect(first.reply.status == 302)

            // A fresh state with the spent code: Apple says invalid_grant.
            var reused = try d.authorize(try d.start()).fields
            reused["code"] = first.form["code"]
            let reusedReply = try d.callback(reused)
            #expect(reusedReply.status == 400 && reusedReply.errorCode == "invalid_grant", "\(reusedReply)")
            #expect(reusedReply.json.description.contains("five minutes"), "the message says what usually causes it")

            // Apple signs a nonce other than the one this state stands for.
            var url = try d.start()
            url.queryItems = url.queryItems?.map { $0.name == "nonce" ? URLQueryItem(name: "nonce", value: "forged") : $0 }
            let forged = try d.callback(try d.authorize(url).fields)
            #expect(forged.status == 400 && forged.errorCode == "nonce_mismatch", "\(forged)")

            // One state raced by four callbacks at once: exactly one signs in.
            let raced = try d.authorize(try d.start()).fields
            let answers = concurrently(4) { _ in try d.callback(raced).status }
            let statuses = answers.compactMap { try? $0.get() }
            #expect(statuses.count == 4)
            #expect(statuses.filter { $0 == 302 }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == 400 }.count == 3, "\(statuses)")

            // The user cancels at Apple.
            let state = try #require(try d.start().queryItems?.first { $0.name == "state" }?.value)
            let cancelled = try d.callback(["error": "user_cancelled_authorize", "state": state])
            #expect(cancelled.status == 302)
            #expect(cancelled.header("location") == SignInDeployment.appURL + "?error=user_cancelled_authorize")
            #expect(cancelled.allHeaders("set-cookie") == ["\(SignInDeployment.preAuthorizationCookie)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=None"],
                    "no session; the pre-authorization cookie cleared")
            #expect(try AuthorizationStateRepository(store: d.store.open()).consume(state, browserSecret: d.lastBrowserCookie) == .unknown,
                    "a cancelled state is spent too")
        }

        @Test("A client secret with the wrong key id: Apple's invalid_client, explained")
        func wrongKeyId() throws {
            let d = try SignInDeployment(overrides: ["SIWA_KEY_ID": "WRONGKEY00"])
            let (reply, _) = try d.signInOnTheWeb()
            // Our configuration, not the browser's mistake: 500, and the explanation only in the log.
            #expect(reply.status == 500 && reply.errorCode == "invalid_client", "\(reply)")
            #expect(!reply.text.contains("SIWA_KEY_ID"))
            #expect(d.gateway.logLines().description.contains("SIWA_KEY_ID"))
            let token = try #require(try d.received().first { $0["path"] as? String == "/auth/token" })
            #expect(token["client_secret_problem"] as? String == "kid is not the key id")
            #expect(!d.gateway.logLines().description.contains("eyJ"), "no JWT reaches the log")
        }

        @Test("Native sign-in: nonce hashed by the app, code exchanged as the bundle id; purchases with its appAccountToken are the user's")
        func theNativeFlow() throws {
            let d = try SignInDeployment()
            let reply = try d.signInNatively(fullName: ["givenName": "Ada", "familyName": "Lovelace"])
            #expect(reply.status == 200, "\(reply)")
            let userId = try #require(reply.json["userId"] as? String)
            let appAccountToken = try #require(reply.json["appAccountToken"] as? String)
            let sessionToken = try #require(reply.json["sessionToken"] as? String)
            #expect(try SessionRepository(store: d.store.open()).session(id: sessionToken, now: Date())?.userId == userId)
            #expect(try d.accounts().account(userId: userId)?.givenName == "Ada")
            let token = try #require(try d.received().last { $0["path"] as? String == "/auth/token" })
            #expect(token["client_id"] as? String == "com.example.storekeeper")
            #expect(token["client_secret_ok"] as? Bool == true)
            #expect(token["redirect_uri"] is NSNull || token["redirect_uri"] == nil)

            // The app buys with the user's appAccountToken; the notification links it to the user.
            var story = LifecycleSimulator(originalTransactionId: "7000000001", group: 70, start: E2E.nowMilliseconds - 60_000)
            story.appAccountToken = appAccountToken
            story.subscribe()
            let received = try Binaries.receive(try Binaries.sign(story.notifications), environment: d.environment)
            #expect(received.answers == ["accepted"])
            _ = try Binaries.process(environment: d.environment)
            let request = try JSONSerialization.data(withJSONObject: ["userId": userId])
            let entitlements = try FunctionBinary(name: "get-entitlements").run(stdin: request, environment: d.environment)
            let answer = try #require(try JSONSerialization.jsonObject(with: entitlements.stdout) as? [String: Any])
            #expect(answer["active"] as? Bool == true, "\(entitlements.stdoutText)")

            // A raw nonce that does not hash to the token's nonce.
            let wrongNonce = try d.signInNatively(rawNonce: "the-real-one", sentNonce: "another-one")
            #expect(wrongNonce.status == 400 && wrongNonce.errorCode == "nonce_mismatch", "\(wrongNonce)")
        }

        @Test("verify-token: wrong audience, expired, alg none, HS256 with the public key, unknown kid that appears after rotation")
        func tokenRefusalsAndRotation() throws {
            let d = try SignInDeployment()
            func verify(_ control: [String: Any], nonce: String? = nil) throws -> SignInDeployment.Reply {
                let token = try #require(try d.control("/control/token", control)["token"] as? String)
                var request: [String: Any] = ["identityToken": token]
                if let nonce { request["nonce"] = nonce }
                return try d.post("/auth/apple/verify", request, admin: true)
            }
            let good = try verify(["claims": ["nonce": "abc"]], nonce: "abc")
            #expect(good.status == 200 && good.json["valid"] as? Bool == true, "\(good)")
            #expect((good.json["claims"] as? [String: Any])?["email_verified"] as? Bool == true, "strings become booleans")
            let now = Int(Date().timeIntervalSince1970)
            let cases: [([String: Any], String)] = [
                (["claims": ["aud": "com.other.app"]], "invalid_audience"),
                (["claims": ["exp": now - 3600, "iat": now - 7200]], "token_expired"),
                (["claims": ["iat": now + 3600]], "issued_in_future"),
                (["claims": ["iss": "https://appleid.apple.com.evil.example"]], "invalid_issuer"),
                (["sign": "none"], "unsupported_algorithm"),
                (["sign": "hs256-public-key"], "unsupported_algorithm"),
                (["header": ["kid": "made-up"]], "unknown_key"),
            ]
            for (control, code) in cases {
                let reply = try verify(control)
                #expect(reply.status == 400 && reply.json["valid"] as? Bool == false, "\(control): \(reply)")
                #expect((reply.json["error"] as? [String: Any])?["code"] as? String == code, "\(control): \(reply)")
            }
            #expect(try verify(["claims": ["nonce": "abc"]], nonce: "xyz").json.description.contains("nonce_mismatch"))

            // The made-up kid above spent this minute's refresh; wait it out in the store, as a minute would.
            try d.store.open().delete(StoreKeys.appleKeySetRefresh)
            let fetchesBefore = try d.received().filter { $0["path"] as? String == "/auth/keys" }.count
            let rotated = try d.control("/control/rotate", ["keep_old": true])
            #expect(rotated["kid"] as? String == "fake-key-2")
            // A native sign-in with a token under the new key: one refresh finds it.
            let reply = try d.signInNatively()
            #expect(reply.status == 200, "\(reply)")
            let fetches = try d.received().filter { $0["path"] as? String == "/auth/keys" }.count
            #expect(fetches == fetchesBefore + 1)
            // Another unknown kid within the minute: refused without asking Apple again.
            #expect(try verify(["header": ["kid": "another-made-up"]]).json.description.contains("unknown_key"))
            #expect(try d.received().filter { $0["path"] as? String == "/auth/keys" }.count == fetches)

            // Apple down: the cached keys still verify.
            try d.control("/control/outage", ["on": true])
            #expect(try verify([:]).json["valid"] as? Bool == true)
        }

        @Test("Every notification type acts once, duplicates are acknowledged; a wrong audience is refused")
        func notifications() throws {
            let d = try SignInDeployment()
            let signedIn = try d.signInNatively()
            let userId = try #require(signedIn.json["userId"] as? String)
            let sessionToken = try #require(signedIn.json["sessionToken"] as? String)
            let sub = try #require(try d.accounts().account(userId: userId)?.sub)
            func deliver(_ type: String, _ extra: [String: Any] = [:]) throws -> (SignInDeployment.Reply, SignInDeployment.Reply) {
                var request: [String: Any] = ["type": type, "sub": sub]
                request.merge(extra) { $1 }
                let payload = try #require(try d.control("/control/notification", request)["payload"] as? String)
                return (try d.post("/auth/apple/notifications", ["payload": payload]),
                        try d.post("/auth/apple/notifications", ["payload": payload]))
            }

            var (first, again) = try deliver("email-disabled", ["email": "relay@privaterelay.appleid.com", "is_private_email": "true"])
            #expect(first.status == 200 && first.json["status"] as? String == "processed", "\(first)")
            #expect(again.status == 200 && again.json["status"] as? String == "duplicate", "\(again)")
            #expect(try d.accounts().account(userId: userId)?.emailRelayEnabled == false)
            #expect(try d.accounts().account(userId: userId)?.isPrivateEmail == true)

            (first, again) = try deliver("email-enabled")
            #expect(first.json["status"] as? String == "processed" && again.json["status"] as? String == "duplicate")
            #expect(try d.accounts().account(userId: userId)?.emailRelayEnabled == true)

            (first, again) = try deliver("consent-revoked")
            #expect(first.json["status"] as? String == "processed" && again.json["status"] as? String == "duplicate")
            #expect(try SessionRepository(store: d.store.open()).session(id: sessionToken, now: Date()) == nil)
            #expect(try d.store.open().get(StoreKeys.appleRefreshToken(userId)) == nil)
            #expect(try d.accounts().account(userId: userId) != nil)

            (first, again) = try deliver("account-delete")
            #expect(first.json["status"] as? String == "processed" && again.json["status"] as? String == "duplicate")
            #expect(try d.accounts().account(userId: userId) == nil)

            // The other spelling, for a user who signed in again.
            let back = try d.signInNatively()
            let newUser = try #require(back.json["userId"] as? String)
            (first, again) = try deliver("account-deleted")
            #expect(first.json["status"] as? String == "processed" && again.json["status"] as? String == "duplicate")
            #expect(try d.accounts().account(userId: newUser) == nil)

            (first, _) = try deliver("email-enabled")
            #expect(first.json["status"] as? String == "unknown_user")

            let wrongAudience = try #require(try d.control("/control/notification", ["type": "account-delete", "sub": sub, "aud": "com.other"])["payload"] as? String)
            let refused = try d.post("/auth/apple/notifications", ["payload": wrongAudience])
            #expect(refused.status == 400 && refused.errorCode == "invalid_audience", "\(refused)")
        }

        @Test("Replayed account events: older than the jti window is stale_event (200, nothing done); none acts on an account, session or email setting newer than its event_time")
        func replayedAccountEvents() throws {
            let d = try SignInDeployment()
            let signedIn = try d.signInNatively()
            let userId = try #require(signedIn.json["userId"] as? String)
            let sessionToken = try #require(signedIn.json["sessionToken"] as? String)
            let sub = try #require(try d.accounts().account(userId: userId)?.sub)
            let day: Int64 = 24 * 3600 * 1000
            func payload(_ type: String, eventTime: Int64) throws -> String {
                try #require(try d.control("/control/notification", ["type": type, "sub": sub, "event_time": eventTime])["payload"] as? String)
            }
            func deliver(_ type: String, eventTime: Int64) throws -> SignInDeployment.Reply {
                try d.post("/auth/apple/notifications", ["payload": try payload(type, eventTime: eventTime)])
            }
            func sessionStands() throws -> Bool {
                try SessionRepository(store: d.store.open()).session(id: sessionToken, now: Date()) != nil
            }
            let now = E2E.nowMilliseconds

            // A month-old consent-revoked, replayed after its jti was forgotten.
            let stale = try deliver("consent-revoked", eventTime: now - 31 * day)
            #expect(stale.status == 200 && stale.json["status"] as? String == "stale_event", "\(stale)")
            #expect(try sessionStands())
            #expect(try d.store.open().get(StoreKeys.appleRefreshToken(userId)) != nil)

            // Within the window, but older than the account and the session.
            let oldDelete = try deliver("account-delete", eventTime: now - 10 * day)
            #expect(oldDelete.status == 200 && oldDelete.json["status"] as? String == "superseded", "\(oldDelete)")
            #expect(try d.accounts().account(userId: userId) != nil)
            let oldRevoke = try deliver("consent-revoked", eventTime: now - 3600 * 1000)
            #expect(oldRevoke.status == 200, "\(oldRevoke)")
            #expect(try sessionStands(), "a session opened after the revocation survives it")
            #expect(try d.store.open().get(StoreKeys.appleRefreshToken(userId)) != nil, "so does the token of that later sign-in")

            // Email settings: the newest event_time wins, whatever arrives last.
            let disabled = try deliver("email-disabled", eventTime: E2E.nowMilliseconds)
            #expect(disabled.json["status"] as? String == "processed", "\(disabled)")
            let lateEnabled = try deliver("email-enabled", eventTime: E2E.nowMilliseconds - 60_000)
            #expect(lateEnabled.json["status"] as? String == "superseded", "\(lateEnabled)")
            #expect(try d.accounts().account(userId: userId)?.emailRelayEnabled == false)

            // From a shell or cron too: a stale event is done, not a failure to retry (exit 0), and logged.
            let request = try JSONSerialization.data(withJSONObject: ["payload": try payload("account-delete", eventTime: now - 40 * day)])
            let result = try FunctionBinary(name: "siwa-notification").run(stdin: request, environment: d.environment)
            #expect(result.exitCode == 0, "\(result.stdoutText) \(result.stderrText)")
            #expect(result.stdoutText.contains(#""status":"stale_event""#), "\(result.stdoutText)")
            #expect(result.stderrText.contains("account_notification_refused") && !result.stderrText.contains("eyJ"))
            #expect(try d.accounts().account(userId: userId) != nil)
        }

        @Test("A session token names its user; the refresh token is checked with Apple once a day; a user who stops using the app is signed out")
        func sessionsAndTheDailyRefreshCheck() throws {
            let d = try SignInDeployment()
            try d.control("/control/user", ["sub": "001777.sessions00000000000000000000.0007", "email": "s@example.org"])
            let (reply, _) = try d.signInOnTheWeb()
            let userId = try #require(reply.json["userId"] as? String)
            let sessionToken = try #require(SignInDeployment.cookieValue(reply.header("set-cookie")))

            let first = try d.post("/auth/apple/verify", ["sessionToken": sessionToken], admin: true)
            #expect(first.status == 200, "\(first)")
            #expect(first.json["userId"] as? String == userId)
            #expect(first.json["appAccountToken"] as? String == reply.json["appAccountToken"] as? String)
            #expect(first.json["refreshCheck"] as? String == "valid")
            let second = try d.post("/auth/apple/verify", ["sessionToken": sessionToken], admin: true)
            #expect(second.json["refreshCheck"] as? String == "skipped", "once a day: \(second)")
            #expect(try d.received().filter { $0["path"] as? String == "/auth/token" && $0["grant_type"] as? String == "refresh_token" }.count == 1)

            let unknown = try d.post("/auth/apple/verify", ["sessionToken": String(repeating: "0", count: 64)], admin: true)
            #expect(unknown.status == 401 && unknown.errorCode == "invalid_session", "\(unknown)")
            let both = try d.post("/auth/apple/verify", ["sessionToken": sessionToken, "nonce": "n"], admin: true)
            #expect(both.status == 400)

            // The user stops using Sign in with Apple for the app; tomorrow's check finds out.
            try d.control("/control/stop-using", ["sub": "001777.sessions00000000000000000000.0007"])
            let store = try d.store.open()
            _ = try store.delete(StoreKeys.appleRefreshCheck(userId))
            let revoked = try d.post("/auth/apple/verify", ["sessionToken": sessionToken], admin: true)
            #expect(revoked.status == 401 && revoked.errorCode == "consent_revoked", "\(revoked)")
            let after = try d.post("/auth/apple/verify", ["sessionToken": sessionToken], admin: true)
            #expect(after.errorCode == "invalid_session", "every session ended: \(after)")
        }

        @Test("Account deletion: revoked at Apple, sessions ended, no email, name or Apple id left in the store, purchases kept")
        func accountDeletion() throws {
            let d = try SignInDeployment()
            try d.control("/control/user", ["sub": "001999.deleteme000000000000000000000.0042", "email": "erase.me@example.org",
                                            "firstName": "Eraseme", "lastName": "Forgetful"])
            let (reply, _) = try d.signInOnTheWeb()
            #expect(reply.status == 302, "\(reply)")
            let userId = try #require(reply.json["userId"] as? String)
            let appAccountToken = try #require(reply.json["appAccountToken"] as? String)
            let native = try d.signInNatively()
            #expect(native.json["userId"] as? String == userId)
            let before = try d.storeContents()
            #expect(before.contains("erase.me@example.org") && before.contains("Eraseme"))

            let unauthorized = try d.post("/auth/apple/revoke", ["userId": userId])
            #expect(unauthorized.status == 401)
            let deletion = try d.post("/auth/apple/revoke", ["userId": userId], admin: true)
            #expect(deletion.status == 200, "\(deletion)")
            #expect(deletion.json["revokedAtApple"] as? Bool == true)
            #expect(deletion.json["sessionsEnded"] as? Int == 2)
            let revoke = try #require(try d.received().last { $0["path"] as? String == "/auth/revoke" })
            #expect(revoke["client_secret_ok"] as? Bool == true && revoke["known_token"] as? Bool == true, "\(revoke)")

            let after = try d.storeContents()
            for personal in ["erase.me@example.org", "Eraseme", "Forgetful", "001999.deleteme000000000000000000000.0042"] {
                #expect(!after.contains(personal), "\(personal) is still in the store")
            }
            #expect(try EntitlementRepository(store: d.store.open()).user(ofAppAccountToken: appAccountToken) == userId)
            // Measured, not asserted: what the database files still hold in freed pages and the
            // WAL (SQLite's secure_delete is off and checkpoints are left to SQLite).
            let path = String(d.store.url.dropFirst("sqlite:".count))
            let raw = ["", "-wal"].compactMap { FileManager.default.contents(atPath: path + $0) }.reduce(Data(), +)
            print("SignInWithAppleTests: raw SQLite files still hold the deleted email: \(raw.range(of: Data("erase.me@example.org".utf8)) != nil)")
            let again = try d.post("/auth/apple/revoke", ["userId": userId], admin: true)
            #expect(again.status == 404, "\(again)")
        }
    }
}
