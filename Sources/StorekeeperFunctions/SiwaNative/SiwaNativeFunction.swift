import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `siwa-native`: sign-in from an iOS app. Verifies the app's identity token (its nonce is
/// the SHA-256 hex of the raw nonce the app keeps), exchanges the authorization code with
/// the app's bundle id as client id, creates or links the user, opens a session.
public final class SiwaNativeFunction: FunctionHandler {
    struct FullName: Decodable {
        var givenName: String?
        var familyName: String?
    }

    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case identityToken, authorizationCode, rawNonce, fullName
        }
        var identityToken: String
        var authorizationCode: String
        var rawNonce: String
        var fullName: FullName?
    }

    struct Response: Encodable {
        var sessionToken: String
        var sessionExpiresAt: Int64
        var userId: String
        var appAccountToken: String
        var newUser: Bool
    }

    static let parts: [SignInWithAppleSettings.Part] = [.identity, .clientSecret, .dataKey]

    public static let descriptor = FunctionDescriptor(
        name: "siwa-native",
        route: "/auth/apple/native",
        method: "POST",
        visibility: .public,
        summary: "Sign in from an iOS app: verify its identity token and nonce, exchange its code, open a session.",
        request: """
            {"identityToken": "<JWT from ASAuthorizationAppleIDCredential>", "authorizationCode": "...",
             "rawNonce": "<the nonce before hashing>", "fullName": {"givenName", "familyName"}?}
            The token's nonce must be the SHA-256 of rawNonce in lowercase hex.
            """,
        response: """
            {"sessionToken": "<opaque>", "sessionExpiresAt": <ms>, "userId": "...", "appAccountToken": "<uuid>", "newUser": true}
            refused: {"error": {"code": "nonce_mismatch" | "invalid_audience" | "token_expired" | "invalid_signature" |
              "unknown_key" | "unsupported_algorithm" | "invalid_grant" | "subject_mismatch" | ..., "message"}} 400;
              Apple or the store down: 503
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
        guard !body.rawNonce.isEmpty else { throw FunctionError.badInput(message: "rawNonce is empty") }
        let name = body.fullName.map { FirstLoginName(givenName: $0.givenName, familyName: $0.familyName) }
        let result = try settings.flow(adapters: context.adapters).completeNative(
            identityToken: body.identityToken, authorizationCode: body.authorizationCode, rawNonce: body.rawNonce,
            name: name, now: context.clock.now())
        context.log.info("signed_in", ["user": result.account.userId, "new_user": result.created])
        return try .json(Response(
            sessionToken: result.sessionId, sessionExpiresAt: result.sessionExpiresAt.millisecondsSince1970,
            userId: result.account.userId, appAccountToken: result.account.appAccountToken, newUser: result.created))
    }
}
