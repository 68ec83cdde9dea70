import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `siwa-native`: sign-in from an iOS app. Verifies the app's identity token (its nonce is
/// the SHA-256 hex of the raw nonce the app keeps), exchanges the authorization code with
/// the app's bundle id as client id, creates or links the user, opens a session.
public final class SiwaNativeFunction: TypedFunction {
    struct FullName: Decodable {
        var givenName: String?
        var familyName: String?
    }

    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case identityToken, authorizationCode, rawNonce, fullName
        }
        var identityToken: String
        var authorizationCode: String
        var rawNonce: String
        var fullName: FullName?
    }

    public struct Response: Encodable {
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
            \(SignInWithAppleWiring.clientRefusedHelp)
            """,
        variables: SignInWithAppleSettings.variables(parts)
    )

    private let siwa: SignInWithAppleWiring

    public init(context: FunctionContext) throws {
        siwa = try SignInWithAppleWiring(context: context, parts: Self.parts)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        guard !request.rawNonce.isEmpty else { throw FunctionError.badInput(message: "rawNonce is empty") }
        let name = request.fullName.map { FirstLoginName(givenName: $0.givenName, familyName: $0.familyName) }
        let result = try siwa.callingApple { flow in
            try flow.completeNative(identityToken: request.identityToken, authorizationCode: request.authorizationCode,
                                    rawNonce: request.rawNonce, name: name, now: siwa.now())
        }
        siwa.logSignedIn(result)
        return Reply(Response(
            sessionToken: result.sessionId, sessionExpiresAt: result.sessionExpiresAt.millisecondsSince1970,
            userId: result.account.userId, appAccountToken: result.account.appAccountToken, newUser: result.created))
    }
}
