import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `siwa-verify-token`: who signed in, for backends that need nothing more. Verifies an
/// identity token (the same checks as every sign-in), exchanges nothing and stores nothing
/// but Apple's key set. Or resolves a session token (the cookie siwa-callback set, the token
/// siwa-native answered) to its user; with the client-secret settings present, that is also
/// where the user's refresh token is checked with Apple, at most once a day per user.
public final class SiwaVerifyTokenFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case identityToken, nonce, sessionToken
        }
        var identityToken: String?
        var nonce: String?
        var sessionToken: String?
    }

    static let parts: [SignInWithAppleSettings.Part] = [.identity]

    public static let descriptor = FunctionDescriptor(
        name: "siwa-verify-token",
        route: "/auth/apple/verify",
        method: "POST",
        visibility: .internal,
        summary: "Verify a Sign in with Apple identity token and answer its claims.",
        request: """
            {"identityToken": "<JWT>", "nonce": "<expected nonce claim>"?}
            or {"sessionToken": "<the session cookie's value or siwa-native's sessionToken>"}
            """,
        response: """
            valid: {"valid": true, "claims": {"iss", "sub", "aud", "exp", "iat", "email", "email_verified",
                    "is_private_email", "real_user_status", "transfer_sub", "nonce", ...}}
              (email_verified and is_private_email are booleans whether Apple sent strings or booleans)
            rejected: {"valid": false, "error": {"code": "malformed_token" | "unsupported_algorithm" | "unknown_key" |
              "invalid_signature" | "invalid_issuer" | "invalid_audience" | "token_expired" | "issued_in_future" |
              "nonce_mismatch", "message"}} exit 65 (HTTP 400); "keys_unavailable" exit 75 (HTTP 503)
            session: {"valid": true, "userId", "appAccountToken", "expiresAt": ms, "refreshCheck":
              "valid" | "skipped" | "unavailable" | "not_configured"}; {"valid": false, "error": {"code":
              "invalid_session" | "consent_revoked"}} HTTP 401, exit 65. With SIWA_TEAM_ID,
              SIWA_KEY_ID, SIWA_PRIVATE_KEY and STOREKEEPER_DATA_KEY set, the user's refresh token
              is checked with Apple at most once a day; a revoked one ends every session.
            """,
        variables: SignInWithAppleSettings.variables(parts) + refreshCheckSettings.map {
            SettingUse(declaration: $0, requirement: .optional, note: "optional here: all four enable the daily refresh-token check of sessions")
        }
    )

    /// All or none: they enable the refresh-token check of sessions.
    static let refreshCheckSettings = [StorekeeperSettings.siwaTeamId.declaration, StorekeeperSettings.siwaKeyId.declaration,
                                       StorekeeperSettings.siwaPrivateKey.declaration, StorekeeperSettings.dataKey.declaration]

    private let context: FunctionContext
    private let settings: SignInWithAppleSettings
    private let verifier: IdentityTokenVerifier
    /// True when the refresh-token check of sessions is configured (the settings then hold
    /// the client secret, its key read only when a check needs it, and the data key).
    private let checksRefreshTokens: Bool

    public init(context: FunctionContext) throws {
        self.context = context
        // All or nothing: a half-configured refresh check is a mistake worth exit 78.
        checksRefreshTokens = Self.refreshCheckSettings.contains { context.environment.optional($0.name) != nil }
        settings = try SignInWithAppleSettings(environment: context.environment,
                                               parts: checksRefreshTokens ? Self.parts + [.clientSecretOnDemand, .dataKey] : Self.parts)
        verifier = settings.verifier(adapters: context.adapters)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        switch (request.identityToken, request.sessionToken) {
        case (let token?, nil): return verify(token, nonce: request.nonce)
        case (nil, let session?) where request.nonce == nil: return try resolve(session)
        default: throw FunctionError.badInput(message: "give identityToken (and optionally nonce) or sessionToken")
        }
    }

    private func resolve(_ sessionToken: String) throws -> Reply<Response> {
        let now = context.clock.now()
        let store = try context.adapters.store()
        guard let session = try SessionRepository(store: store).session(id: sessionToken, now: now) else {
            return refusal(FunctionError(.invalidSession, "no open session with this token (ended, expired or never opened)"))
        }
        var check = "not_configured"
        if checksRefreshTokens {
            let outcome: SignInFlow.RefreshCheck?
            do {
                outcome = try settings.flow(adapters: context.adapters).checkRefreshToken(userId: session.userId, now: now)
            } catch let error as AppleIDError {
                // Only Apple's invalid_grant (answered as .revoked) signs anybody out. Apple
                // down, or refusing our client secret, or answering nonsense: the session
                // stands, the check waits for tomorrow's turn, the log says why.
                context.log.warning("refresh_check_unavailable", ["code": error.code, "reason": error.reason])
                outcome = nil
            }
            if outcome == .revoked {
                context.log.info("refresh_token_revoked", ["user": session.userId])
                return refusal(FunctionError(.consentRevoked, "the user revoked Sign in with Apple for this app: every session was ended"))
            }
            check = outcome?.rawValue ?? "unavailable"
        }
        let account = try AccountRepository(store: store, dataKey: nil).account(userId: session.userId)
        return Reply(.session(SessionAnswer(userId: session.userId, appAccountToken: account?.appAccountToken,
                                            expiresAt: session.expiresAt, refreshCheck: check)))
    }

    private func refusal(_ error: some CodedError) -> Reply<Response> {
        Reply(.refused(Refusal(error: .init(code: error.code, message: error.reason))), refusing: error)
    }

    private func verify(_ identityToken: String, nonce: String?) -> Reply<Response> {
        do {
            let verified = try verifier.verify(identityToken, expectedNonce: nonce, now: context.clock.now())
            return Reply(.token(TokenAnswer(claims: verified.claims)))
        } catch {
            context.log.warning("identity_token_rejected", ["code": error.code, "reason": error.reason])
            return refusal(error)
        }
    }
}
