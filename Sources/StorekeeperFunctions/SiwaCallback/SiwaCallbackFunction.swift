import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `siwa-callback`: where Apple's form_post lands. Checks that the browser posting is the one
/// that started the sign-in (its pre-authorization cookie), consumes the state, exchanges the
/// code, verifies the identity token, keeps the first-login name, creates or links the user,
/// opens a session (HttpOnly, Secure cookie) and sends the browser to the app.
public final class SiwaCallbackFunction: FunctionHandler {
    /// Apple's form fields. `user` (JSON: name and email) comes on the first authorization only.
    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case code, state, id_token, user, error
        }
        var code: String?
        var state: String?
        var id_token: String?
        var user: String?
        var error: String?
    }

    struct Response: Encodable {
        var redirect: String
        var userId: String
        var newUser: Bool
        var appAccountToken: String
        var sessionExpiresAt: Int64
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
            Apple refusing the client secret (invalid_client, unauthorized_client): 500, exit 78, explained in the log.
            """,
        variables: SignInWithAppleSettings.variables(parts)
    )

    private let context: FunctionContext
    private let settings: SignInWithAppleSettings

    public init(context: FunctionContext) throws {
        self.context = context
        settings = try SignInWithAppleSettings(environment: context.environment, parts: Self.parts)
    }

    public func handle(_ request: FunctionRequest) throws -> FunctionResponse {
        let body = try request.decode(Request.self)
        let store = try context.adapters.store()
        let now = context.clock.now()
        let appURL = settings.appURL ?? "/"
        let states = AuthorizationStateRepository(store: store)

        let browserSecret = PreAuthorizationCookie.value(in: request)

        if let error = body.error {
            // The user cancelled, or Apple refused: the state is spent either way, but only
            // by the browser it belongs to (another's post must not cancel it).
            if let state = body.state { _ = try states.consume(state, browserSecret: browserSecret) }
            let code = String(error.prefix(64).filter { $0.isLetter || $0 == "_" })
            context.log.info("sign_in_not_completed", ["apple_error": code])
            let location = Self.appending(["error": code.isEmpty ? "unknown_error" : code], to: appURL)
            let answer = try FunctionResponse.json(["redirect": location, "error": code.isEmpty ? "unknown_error" : code]).body
            return redirect(to: location, cookies: [PreAuthorizationCookie.clearing], body: answer)
        }
        guard let state = body.state, !state.isEmpty else { throw FunctionError.badInput(message: "missing field `state`") }
        guard let code = body.code, !code.isEmpty else { throw FunctionError.badInput(message: "missing field `code`") }
        // Before anything is spent or Apple is asked: a post from another browser than the one
        // that started the sign-in is login CSRF (the attacker's code in the victim's browser).
        let pending: AuthorizationStateRepository.Pending
        switch try states.consume(state, browserSecret: browserSecret) {
        case .consumed(let found):
            pending = found
        case .unknown:
            context.log.warning("state_refused", ["reason": "unknown"])
            throw SignInError(.invalidState, "the state is unknown, expired or already used")
        case .otherBrowser:
            context.log.warning("state_refused", ["reason": browserSecret == nil ? "no_browser_cookie" : "other_browser"])
            throw SignInError(.invalidState, "the sign-in was not started in this browser (its pre-authorization cookie is missing or different)")
        }
        let name = body.user.flatMap(FirstLoginName.parsingUserField)
        let result = try settings.flow(adapters: context.adapters).completeWeb(
            code: code, clientId: settings.webClientId, redirectURI: settings.redirectURI ?? "",
            nonce: pending.nonce, name: name, now: now)
        context.log.info("signed_in", ["user": result.account.userId, "new_user": result.created])
        let maxAge = SessionRepository.lifetime.components.seconds
        let cookie = "\(Self.cookieName)=\(result.sessionId); Path=/; Max-Age=\(maxAge); HttpOnly; Secure; SameSite=Lax"
        let answer = try FunctionResponse.json(Response(
            redirect: appURL, userId: result.account.userId, newUser: result.created,
            appAccountToken: result.account.appAccountToken, sessionExpiresAt: result.sessionExpiresAt.millisecondsSince1970)).body
        return redirect(to: appURL, cookies: [cookie, PreAuthorizationCookie.clearing], body: answer)
    }

    private func redirect(to location: String, cookies: [String], body: [UInt8]) -> FunctionResponse {
        FunctionResponse(status: 302, headers: [("Location", location), ("Cache-Control", "no-store")] + cookies.map { ("Set-Cookie", $0) },
                         body: body)
    }

    static func appending(_ parameters: [String: String], to url: String) -> String {
        let query = PercentEncoding.form(parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        return url + (url.contains("?") ? "&" : "?") + query
    }
}
