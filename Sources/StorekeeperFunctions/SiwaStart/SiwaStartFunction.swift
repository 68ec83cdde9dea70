import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `siwa-start`: begins a web sign-in. Makes a single-use `state` and a `nonce`, keeps them
/// in the store for ten minutes, and sends the browser to Apple's authorize page with a
/// pre-authorization cookie that binds the state to this browser (login CSRF).
public final class SiwaStartFunction: TypedFunction {
    public typealias Request = NoFields

    public struct Response: Encodable {
        var url: String
        var state: String
        var expiresIn: Int
    }

    static let parts: [SignInWithAppleSettings.Part] = [.identity, .redirect]

    public static let descriptor = FunctionDescriptor(
        name: "siwa-start",
        route: "/auth/apple/start",
        method: "GET",
        visibility: .public,
        summary: "Start a web Sign in with Apple: make a single-use state and nonce, redirect to Apple's authorize page.",
        request: """
            {} (over HTTP: GET /auth/apple/start, no parameters)
            """,
        response: """
            over HTTP: 302 to Apple's /auth/authorize with response_type=code, response_mode=form_post,
              scope=name email, client_id (the first of SIWA_CLIENT_IDS), redirect_uri, state, nonce;
              Set-Cookie: __Host-storekeeper_siwa=<random>; Path=/; Max-Age=600; HttpOnly; Secure; SameSite=None
              (its SHA-256 is kept with the state; siwa-callback refuses the state without it)
            direct: {"url": "<authorize URL>", "state": "...", "expiresIn": 600} (no cookie: a state made
              in direct mode cannot finish a sign-in, which only a browser can)
            """,
        variables: SignInWithAppleSettings.variables(parts)
    )

    private let siwa: SignInWithAppleWiring

    public init(context: FunctionContext) throws {
        siwa = try SignInWithAppleWiring(context: context, parts: Self.parts)
    }

    public func handle(_ request: NoFields, call: FunctionRequest) throws -> Reply<Response> {
        let (state, nonce, browserSecret) = try AuthorizationStateRepository(store: try siwa.store()).begin(now: siwa.now())
        let url = siwa.settings.client(adapters: siwa.context.adapters).authorizeURL(
            clientId: siwa.settings.webClientId, redirectURI: siwa.settings.redirectURI ?? "", state: state, nonce: nonce)
        let answer = Response(url: url, state: state, expiresIn: Int(AuthorizationStateRepository.lifetime.components.seconds))
        guard call.frontDoor.isHTTP else { return Reply(answer) }
        // The only cookie this function sets: the session cookie comes from siwa-callback.
        return Reply(answer, status: 302, headers: [("Location", url), ("Cache-Control", "no-store"),
                                                    ("Set-Cookie", PreAuthorizationCookie.setting(browserSecret))])
    }
}
