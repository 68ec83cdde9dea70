import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `siwa-callback`: where Apple's form_post lands. Consumes the state, exchanges the code,
/// verifies the identity token, keeps the first-login name, creates or links the user, opens
/// a session (HttpOnly, Secure cookie) and sends the browser to the app.
public final class SiwaCallbackFunction: FunctionHandler {
    /// Apple's form fields. `user` (JSON: name and email) comes on the first authorization only.
    struct Request: RequestBody {
        static let fields: Set<String> = ["code", "state", "id_token", "user", "error"]
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
            """,
        response: """
            302 to SIWA_APP_URL with Set-Cookie: storekeeper_session=<id>; Path=/; HttpOnly; Secure; SameSite=Lax;
              body {"redirect", "userId", "newUser", "appAccountToken", "sessionExpiresAt"}
            Apple's error (the user cancelled): 302 to SIWA_APP_URL?error=<Apple's code>, no session;
              body {"redirect", "error": "user_cancelled_authorize"}
            refused: {"error": {"code": "invalid_state" | "invalid_grant" | "nonce_mismatch" |
              "invalid_audience" | "token_expired" | ... , "message"}} 400; Apple or the store down: 503
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

        if let error = body.error {
            // The user cancelled, or Apple refused: the state is spent either way.
            if let state = body.state { _ = try states.consume(state) }
            let code = String(error.prefix(64).filter { $0.isLetter || $0 == "_" })
            context.log.info("sign_in_not_completed", ["apple_error": code])
            let location = Self.appending(["error": code.isEmpty ? "unknown_error" : code], to: appURL)
            let answer = try FunctionResponse.json(["redirect": location, "error": code.isEmpty ? "unknown_error" : code]).body
            return redirect(to: location, cookie: nil, body: answer)
        }
        guard let state = body.state, !state.isEmpty else { throw FunctionError.badInput(message: "missing field `state`") }
        guard let code = body.code, !code.isEmpty else { throw FunctionError.badInput(message: "missing field `code`") }
        guard let pending = try states.consume(state) else {
            context.log.warning("state_refused")
            throw SignInError(.invalidState, "the state is unknown, expired or already used")
        }
        let name = body.user.flatMap(FirstLoginName.parsingUserField)
        let result = try SignInWithAppleSettings.callingApple {
            try settings.flow(adapters: context.adapters).completeWeb(
                code: code, clientId: settings.webClientId, redirectURI: settings.redirectURI ?? "",
                nonce: pending.nonce, name: name, now: now)
        }
        context.log.info("signed_in", ["user": result.account.userId, "new_user": result.created])
        let maxAge = SessionRepository.lifetime.components.seconds
        let cookie = "\(Self.cookieName)=\(result.sessionId); Path=/; Max-Age=\(maxAge); HttpOnly; Secure; SameSite=Lax"
        let answer = try FunctionResponse.json(Response(
            redirect: appURL, userId: result.account.userId, newUser: result.created,
            appAccountToken: result.account.appAccountToken, sessionExpiresAt: result.sessionExpiresAt.millisecondsSince1970)).body
        return redirect(to: appURL, cookie: cookie, body: answer)
    }

    private func redirect(to location: String, cookie: String?, body: [UInt8]) -> FunctionResponse {
        var headers = [("Location", location), ("Cache-Control", "no-store")]
        if let cookie { headers.append(("Set-Cookie", cookie)) }
        return FunctionResponse(status: 302, headers: headers, body: body)
    }

    static func appending(_ parameters: [String: String], to url: String) -> String {
        let query = PercentEncoding.form(parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        return url + (url.contains("?") ? "&" : "?") + query
    }
}
