import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `siwa-verify-token`: who signed in, for backends that need nothing more. Verifies an
/// identity token (the same checks as every sign-in), exchanges nothing and stores nothing
/// but Apple's key set.
public final class SiwaVerifyTokenFunction: FunctionHandler {
    struct Request: RequestBody {
        static let fields: Set<String> = ["identityToken", "nonce"]
        var identityToken: String
        var nonce: String?
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
            """,
        response: """
            valid: {"valid": true, "claims": {"iss", "sub", "aud", "exp", "iat", "email", "email_verified",
                    "is_private_email", "real_user_status", "transfer_sub", "nonce", ...}}
              (email_verified and is_private_email are booleans whether Apple sent strings or booleans)
            rejected: {"valid": false, "error": {"code": "malformed_token" | "unsupported_algorithm" | "unknown_key" |
              "invalid_signature" | "invalid_issuer" | "invalid_audience" | "token_expired" | "issued_in_future" |
              "nonce_mismatch", "message"}} exit 65 (HTTP 400); "keys_unavailable" exit 75 (HTTP 503)
            """,
        variables: SignInWithAppleSettings.variables(parts)
    )

    private let context: FunctionContext
    private let verifier: IdentityTokenVerifier

    public init(context: FunctionContext) throws {
        self.context = context
        verifier = try SignInWithAppleSettings(environment: context.environment, parts: Self.parts).verifier(adapters: context.adapters)
    }

    public func handle(_ request: FunctionRequest) throws -> FunctionResponse {
        let body = try request.decode(Request.self)
        let verified: VerifiedIdentityToken
        do {
            verified = try verifier.verify(body.identityToken, expectedNonce: body.nonce, now: context.clock.now())
        } catch {
            context.log.warning("identity_token_rejected", ["code": error.code, "reason": error.reason])
            var answer = JSONObjectBuilder()
            answer.add("valid", false)
            try answer.add("error", encoding: ["code": error.code, "message": error.reason])
            return FunctionResponse(status: error.isRetryable ? 503 : 400, body: answer.build(), exitCode: error.isRetryable ? 75 : 65)
        }
        var answer = JSONObjectBuilder()
        answer.add("valid", true)
        try answer.add("claims", encoding: verified.claims)
        return FunctionResponse(status: 200, body: answer.build())
    }
}
