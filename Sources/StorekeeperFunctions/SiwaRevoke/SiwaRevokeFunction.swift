import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `siwa-revoke`: account deletion. Revokes the user's refresh token at Apple, ends every
/// session, deletes the personal data (email, name, Apple's user id, tokens) and keeps the
/// purchase records; answers what was done.
public final class SiwaRevokeFunction: FunctionHandler {
    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case userId
        }
        var userId: String
    }

    struct Response: Encodable {
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
        guard AccountRepository.isUserId(body.userId) else {
            throw FunctionError.badInput(message: "userId is not a Storekeeper user id (32 lowercase hex digits)")
        }
        let store = try context.adapters.store()
        let accounts = AccountRepository(store: store, dataKey: settings.dataKey)
        guard try accounts.account(userId: body.userId) != nil || (try accounts.keptRefreshToken(userId: body.userId)) != .none else {
            throw FunctionError.notFound(message: (try accounts.wasDeleted(userId: body.userId)) ? "the account was already deleted" : "no such user")
        }
        let revocation = try settings.flow(adapters: context.adapters).revokeAndDelete(userId: body.userId, now: context.clock.now())
        if revocation.refreshTokenUnreadable {
            context.log.warning("refresh_token_unreadable", ["user": body.userId,
                "reason": "the kept refresh token could not be opened (another data key or a damaged record): deleted without revoking it at Apple"])
        }
        var deleted: [String] = []
        if revocation.deletion.accountDeleted { deleted += ["account", "appleUserId"] }
        if revocation.deletion.refreshTokenDeleted { deleted.append("refreshToken") }
        deleted.append("sessions")
        context.log.info("account_deleted", ["user": body.userId, "revoked_at_apple": revocation.revokedAtApple,
                                             "sessions_ended": revocation.deletion.sessionsEnded])
        return try .json(Response(userId: body.userId, revokedAtApple: revocation.revokedAtApple,
                                  sessionsEnded: revocation.deletion.sessionsEnded, deleted: deleted,
                                  kept: ["purchases", "appAccountToken"]))
    }
}
