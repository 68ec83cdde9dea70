import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `siwa-callback`: where Apple's form_post lands. Checks that the browser posting is the one
/// that started the sign-in (its pre-authorization cookie), consumes the state, exchanges the
/// code, verifies the identity token, keeps the first-login name, creates or links the user,
/// opens a session (HttpOnly, Secure cookie) and sends the browser to the app.
public final class SiwaCallbackFunction: TypedFunction {
    /// Apple's form fields. `user` (JSON: name and email) comes on the first authorization only.
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case code, state, id_token, user, error
        }
        var code: String?
        var state: String?
        var id_token: String?
        var user: String?
        var error: String?
    }

    /// A finished sign-in, or (`error`) one the user or Apple ended; the browser is sent to
    /// `redirect` either way.
    public struct Response: Encodable {
        var redirect: String
        var error: String?
        var userId: String?
        var newUser: Bool?
        var appAccountToken: String?
        var sessionExpiresAt: Int64?
    }

    static let cookieName = "storekeeper_session"
    static let parts: [SignInWithAppleSettings.Part] = [.identity, .clientSecret, .redirect, .appURL, .dataKey]

    public static let descriptor = FunctionDescriptor(
        name: "siwa-callback",
        route: "/auth/apple/callback",
        method: "POST",
        visibility: .public,
        summary: "Finish a web Sign in with Apple: check the state, exchange the code, verify the token, open a session.",
        request: """
            Apple's form_post (application/x-www-form-urlencoded): code, state, user (first login only:
            {"name": {"firstName", "lastName"}, "email"}), id_token; or error (user_cancelled_authorize, ...), state
            with the Cookie __Host-storekeeper_siwa that siwa-start set in this browser
            """,
        response: """
            302 to SIWA_APP_URL with Set-Cookie: storekeeper_session=<id>; Path=/; HttpOnly; Secure; SameSite=Lax
              and the pre-authorization cookie cleared (Max-Age=0);
              body {"redirect", "userId", "newUser", "appAccountToken", "sessionExpiresAt"}
            Apple's error (the user cancelled): 302 to SIWA_APP_URL?error=<Apple's code>, no session, the
              pre-authorization cookie cleared; body {"redirect", "error": "user_cancelled_authorize"}
            refused: {"error": {"code": "invalid_state" | "invalid_grant" | "nonce_mismatch" |
              "invalid_audience" | "token_expired" | ... , "message"}} 400; Apple or the store down: 503
            invalid_state also when the pre-authorization cookie is missing or another browser's: then
              the state is left unspent for the browser that started it, and Apple is not asked anything
            every refusal clears the pre-authorization cookie too (Set-Cookie ...; Max-Age=0)
            \(SignInWithAppleWiring.clientRefusedHelp)
            """,
        variables: SignInWithAppleSettings.variables(parts)
    )

    private let siwa: SignInWithAppleWiring

    public init(context: FunctionContext) throws {
        siwa = try SignInWithAppleWiring(context: context, parts: Self.parts)
    }

    /// Whatever went wrong, the pre-authorization cookie has done its job (or was never this
    /// browser's): the browser drops it, and a new sign-in starts with a new one.
    public func errorHeaders(for call: FunctionRequest) -> [(String, String)] {
        [("Set-Cookie", PreAuthorizationCookie.clearing)]
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let states = AuthorizationStateRepository(store: try siwa.store())
        let appURL = siwa.settings.appURL ?? "/"
        let browserSecret = PreAuthorizationCookie.value(in: call)

        if let error = request.error {
            // The user cancelled, or Apple refused: the state is spent either way, but only
            // by the browser it belongs to (another's post must not cancel it).
            if let state = request.state { _ = try states.consume(state, browserSecret: browserSecret) }
            let filtered = String(error.prefix(64).filter { $0.isLetter || $0 == "_" })
            let code = filtered.isEmpty ? "unknown_error" : filtered
            siwa.log.info("sign_in_not_completed", ["apple_error": filtered])
            let location = Self.appending(["error": code], to: appURL)
            return redirect(Response(redirect: location, error: code), cookies: [PreAuthorizationCookie.clearing])
        }
        guard let state = request.state, !state.isEmpty else { throw FunctionError.badInput(message: "missing field `state`") }
        guard let code = request.code, !code.isEmpty else { throw FunctionError.badInput(message: "missing field `code`") }
        let pending = try consume(state, browserSecret: browserSecret, from: states)
        let name = request.user.flatMap(FirstLoginName.parsingUserField)
        let result = try siwa.callingApple { flow in
            try flow.completeWeb(code: code, clientId: siwa.settings.webClientId, redirectURI: siwa.settings.redirectURI ?? "",
                                 nonce: pending.nonce, name: name, now: siwa.now())
        }
        siwa.logSignedIn(result)
        let cookie = "\(Self.cookieName)=\(result.sessionId); Path=/; Max-Age=\(SessionRepository.lifetime.components.seconds); HttpOnly; Secure; SameSite=Lax"
        let answer = Response(redirect: appURL, userId: result.account.userId, newUser: result.created,
                              appAccountToken: result.account.appAccountToken,
                              sessionExpiresAt: result.sessionExpiresAt.millisecondsSince1970)
        return redirect(answer, cookies: [cookie, PreAuthorizationCookie.clearing])
    }

    /// Spends the state, before Apple is asked anything: a post from another browser than the
    /// one that started the sign-in is login CSRF (the attacker's code in the victim's browser).
    private func consume(_ state: String, browserSecret: String?, from states: AuthorizationStateRepository) throws -> AuthorizationStateRepository.Pending {
        switch try states.consume(state, browserSecret: browserSecret) {
        case .consumed(let pending):
            return pending
        case .unknown:
            siwa.log.warning("state_refused", ["reason": "unknown"])
            throw SignInError(.invalidState, "the state is unknown, expired or already used")
        case .otherBrowser:
            siwa.log.warning("state_refused", ["reason": browserSecret == nil ? "no_browser_cookie" : "other_browser"])
            throw SignInError(.invalidState, "the sign-in was not started in this browser (its pre-authorization cookie is missing or different)")
        }
    }

    private func redirect(_ answer: Response, cookies: [String]) -> Reply<Response> {
        Reply(answer, status: 302, headers: [("Location", answer.redirect), ("Cache-Control", "no-store")] + cookies.map { ("Set-Cookie", $0) })
    }

    static func appending(_ parameters: [String: String], to url: String) -> String {
        let query = PercentEncoding.form(parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        return url + (url.contains("?") ? "&" : "?") + query
    }
}
