import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `siwa-revoke`: account deletion. Revokes the user's refresh token at Apple, ends every
/// session, deletes the personal data (email, name, Apple's user id, tokens) and keeps the
/// purchase records; answers what was done.
public final class SiwaRevokeFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case userId
        }
        var userId: String
    }

    public struct Response: Encodable {
        var userId: String
        var revokedAtApple: Bool
        var sessionsEnded: Int
        var deleted: [String]
        var kept: [String]
    }

    static let parts: [SignInWithAppleSettings.Part] = [.identity, .clientSecret, .dataKey]

    public static let descriptor = FunctionDescriptor(
        name: "siwa-revoke",
        route: "/auth/apple/revoke",
        method: "POST",
        visibility: .internal,
        summary: "Delete a user's account: revoke the Apple refresh token, end sessions, delete personal data, keep purchases.",
        request: """
            {"userId": "..."}
            """,
        response: """
            {"userId", "revokedAtApple": true, "sessionsEnded": 2, "deleted": ["account", "appleUserId", "refreshToken", "sessions"],
             "kept": ["purchases", "appAccountToken"]}
            A userId that is not one Storekeeper makes (32 lowercase hex digits): 400 invalid_request.
            An unknown user: 404 not_found. Apple unreachable: 503 and nothing deleted (try again).
            \(SignInWithAppleWiring.clientRefusedHelp)
            """,
        variables: SignInWithAppleSettings.variables(parts)
    )

    private let siwa: SignInWithAppleWiring

    public init(context: FunctionContext) throws {
        siwa = try SignInWithAppleWiring(context: context, parts: Self.parts)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let userId = request.userId
        guard AccountRepository.isUserId(userId) else {
            throw FunctionError.badInput(message: "userId is not a Storekeeper user id (32 lowercase hex digits)")
        }
        let accounts = AccountRepository(store: try siwa.store(), dataKey: siwa.settings.dataKey)
        guard try accounts.account(userId: userId) != nil || (try accounts.keptRefreshToken(userId: userId)) != .none else {
            throw FunctionError.notFound(message: (try accounts.wasDeleted(userId: userId)) ? "the account was already deleted" : "no such user")
        }
        let revocation = try siwa.callingApple { try $0.revokeAndDelete(userId: userId, now: siwa.now()) }
        if revocation.refreshTokenUnreadable {
            siwa.log.warning("refresh_token_unreadable", ["user": userId,
                "reason": "the kept refresh token could not be opened (another data key or a damaged record): deleted without revoking it at Apple"])
        }
        var deleted: [String] = []
        if revocation.deletion.accountDeleted { deleted += ["account", "appleUserId"] }
        if revocation.deletion.refreshTokenDeleted { deleted.append("refreshToken") }
        deleted.append("sessions")
        siwa.log.info("account_deleted", ["user": userId, "revoked_at_apple": revocation.revokedAtApple,
                                          "sessions_ended": revocation.deletion.sessionsEnded])
        return Reply(Response(userId: userId, revokedAtApple: revocation.revokedAtApple,
                              sessionsEnded: revocation.deletion.sessionsEnded, deleted: deleted,
                              kept: ["purchases", "appAccountToken"]))
    }
}
