import FoundationEssentials

/// The steps of a sign-in after Apple has answered, shared by the web callback and native
/// apps: exchange the code (with a fresh client secret), verify the identity token, create
/// or find the user by `sub`, keep the first-login name and the encrypted refresh token,
/// open a session. Also account deletion with revocation at Apple.
public struct SignInFlow {
    public struct Result: Sendable {
        public var account: AppleAccount
        public var created: Bool
        public var sessionId: String
        public var sessionExpiresAt: Date
        public var claims: IdentityTokenClaims
    }

    public struct Revocation: Sendable {
        public var deletion: AccountRepository.Deletion
        /// True when a refresh token was revoked at Apple.
        public var revokedAtApple: Bool
        /// True when a refresh token was kept but could not be opened (another data key, a
        /// damaged record): it could not be revoked at Apple and was deleted with the rest.
        public var refreshTokenUnreadable: Bool = false
    }

    private let verifier: IdentityTokenVerifier
    private let client: AppleIDClient
    private let clientSecret: ClientSecret
    private let accounts: AccountRepository
    private let sessions: SessionRepository
    /// Dates the client secret by its real wall time: Apple checks its iat/exp against its own
    /// clock, even when decisions are pinned (STOREKEEPER_NOW).
    private let time: any TimeSource

    public init(verifier: IdentityTokenVerifier, client: AppleIDClient, clientSecret: ClientSecret,
                accounts: AccountRepository, sessions: SessionRepository, time: any TimeSource = SystemTime()) {
        self.verifier = verifier
        self.client = client
        self.clientSecret = clientSecret
        self.accounts = accounts
        self.sessions = sessions
        self.time = time
    }

    private func secret(for clientId: String) throws -> String {
        try clientSecret.make(clientId: clientId, now: time.realNow())
    }

    /// The web flow: `code` from Apple's form_post, exchanged as the web Services ID with the
    /// same redirect URI; the returned token must carry the nonce `siwa-start` sent.
    public func completeWeb(code: String, clientId: String, redirectURI: String, nonce: String,
                            name: FirstLoginName?, now: Date) throws -> Result {
        let tokens = try client.exchange(code: code, clientId: clientId, clientSecret: try secret(for: clientId),
                                         redirectURI: redirectURI)
        guard let idToken = tokens.idToken else { throw SignInError(.missingIdentityToken, "Apple's token response has no id_token") }
        let verified = try verifier.verify(idToken, expectedNonce: nonce, now: now)
        return try finish(verified.claims, refreshToken: tokens.refreshToken, clientId: clientId, name: name, now: now)
    }

    /// The native flow: the app's identity token carries SHA-256(rawNonce) in hex; its
    /// authorization code is exchanged with the app's own client id (the token's audience)
    /// and no redirect URI, and must belong to the same user.
    public func completeNative(identityToken: String, authorizationCode: String, rawNonce: String,
                               name: FirstLoginName?, now: Date) throws -> Result {
        let verified = try verifier.verify(identityToken, expectedNonce: IdentityTokenVerifier.hashedNonce(rawNonce), now: now)
        guard let clientId = verified.claims.aud.first(where: verifier.configuration.clientIds.contains) else {
            throw IdentityTokenError(.invalidAudience, "no configured client id in the audience")
        }
        let tokens = try client.exchange(code: authorizationCode, clientId: clientId,
                                         clientSecret: try secret(for: clientId), redirectURI: nil)
        if let idToken = tokens.idToken {
            let exchanged = try verifier.verify(idToken, expectedNonce: nil, now: now)
            guard exchanged.claims.sub == verified.claims.sub else {
                throw SignInError(.subjectMismatch, "the authorization code was issued for another user than the identity token")
            }
        }
        return try finish(verified.claims, refreshToken: tokens.refreshToken, clientId: clientId, name: name, now: now)
    }

    private func finish(_ claims: IdentityTokenClaims, refreshToken: String?, clientId: String,
                        name: FirstLoginName?, now: Date) throws -> Result {
        // A new account is written once, complete: Apple sends the name only on the first
        // authorization, and a process killed between two writes would lose it.
        let fill: (inout AppleAccount) -> Void = { account in
            if let email = claims.email { account.email = email }
            if let verified = claims.emailVerified { account.emailVerified = verified }
            if let isPrivate = claims.isPrivateEmail { account.isPrivateEmail = isPrivate }
            if let status = claims.realUserStatus { account.realUserStatus = status }
            if let transferSub = claims.transferSub { account.transferSub = transferSub }
            // Apple sends the name once, on the first authorization: keep it the moment it comes.
            if let name {
                if let given = name.givenName, !given.isEmpty { account.givenName = given }
                if let family = name.familyName, !family.isEmpty { account.familyName = family }
            }
            account.lastSignInAt = now.millisecondsSince1970
        }
        var (account, created) = try accounts.findOrCreate(sub: claims.sub, now: now, filling: fill)
        if !created {
            fill(&account)
            try accounts.save(account)
        }
        if let refreshToken {
            try accounts.storeRefreshToken(refreshToken, clientId: clientId, userId: account.userId, now: now)
        }
        let session = try sessions.open(userId: account.userId, now: now)
        return Result(account: account, created: created, sessionId: session.id, sessionExpiresAt: session.expiresAt, claims: claims)
    }

    /// The answer of a refresh-token check.
    public enum RefreshCheck: String, Sendable {
        /// Apple accepted the refresh token: the user's consent stands.
        case valid
        /// Apple refused it (`invalid_grant`): the user revoked this app; the token and every
        /// session are gone, as on a consent-revoked notification.
        case revoked
        /// Checked already in the last 24 hours, or no token is kept: Apple was not asked.
        case skipped
    }

    /// Checks the user's refresh token against Apple (`grant_type=refresh_token`), at most
    /// once a day per user (the turn is a `setIfAbsent` with a 24-hour expiry in the store).
    public func checkRefreshToken(userId: String, now: Date) throws -> RefreshCheck {
        // The turn first: most calls are not granted it and read or decrypt nothing.
        guard try accounts.mayCheckRefreshToken(userId: userId),
              case .token(let token, let clientId) = try accounts.keptRefreshToken(userId: userId) else { return .skipped }
        do {
            _ = try client.refresh(refreshToken: token, clientId: clientId, clientSecret: try secret(for: clientId))
            return .valid
        } catch let error as AppleIDError where error.kind == .invalidGrant {
            _ = try sessions.endAll(userId: userId)
            try accounts.deleteRefreshToken(userId: userId)
            return .revoked
        }
    }

    /// Account deletion asked by the user: the refresh token is revoked at Apple first (so a
    /// failure there leaves everything in place to try again), then the personal data goes.
    public func revokeAndDelete(userId: String, now: Date) throws -> Revocation {
        var revoked = false
        let kept = try accounts.keptRefreshToken(userId: userId)
        if case .token(let token, let clientId) = kept {
            try client.revoke(token: token, clientId: clientId, clientSecret: try secret(for: clientId))
            revoked = true
        }
        let deletion = try accounts.delete(userId: userId, sessions: sessions, now: now)
        return Revocation(deletion: deletion, revokedAtApple: revoked, refreshTokenUnreadable: kept == .unreadable)
    }
}
