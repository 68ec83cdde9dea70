import FoundationEssentials

/// Acts on Apple's server-to-server account notifications, once per `jti`.
public struct AccountEventProcessor {
    /// How long a notification id is remembered for deduplication.
    public static let deduplicationWindow: Duration = .seconds(30 * 24 * 3600)

    public enum Outcome: String, Sendable {
        case processed
        case duplicate
        /// A type this version does not know: acknowledged, nothing done.
        case ignored
        /// No user with this `sub` (never signed in here, or already deleted).
        case unknownUser = "unknown_user"
    }

    private let store: any KeyValueStore
    private let accounts: AccountRepository
    private let sessions: SessionRepository

    public init(store: any KeyValueStore) {
        self.store = store
        self.accounts = AccountRepository(store: store, dataKey: nil)
        self.sessions = SessionRepository(store: store)
    }

    /// Every action is idempotent, so the id is remembered after acting: a crash in between
    /// means Apple's retry acts again, never that an event is lost.
    public func process(_ notification: AppleIDNotification, now: Date) throws -> (outcome: Outcome, userId: String?) {
        let seenKey = StoreKeys.accountNotification(notification.jti)
        if try store.get(seenKey) != nil { return (.duplicate, nil) }
        let outcome = try act(notification.event, now: now)
        if !(try store.setIfAbsent(seenKey, Array(notification.event.type.utf8), expiresIn: Self.deduplicationWindow)) {
            return (.duplicate, outcome.userId)
        }
        return outcome
    }

    private func act(_ event: AppleIDEvent, now: Date) throws -> (outcome: Outcome, userId: String?) {
        guard let type = event.typeValue else { return (.ignored, nil) }
        guard let userId = try accounts.userId(sub: event.sub) else { return (.unknownUser, nil) }
        switch type {
        case .emailEnabled, .emailDisabled:
            guard var account = try accounts.account(userId: userId) else { return (.unknownUser, userId) }
            account.emailRelayEnabled = type == .emailEnabled
            if let email = event.email { account.email = email }
            if let isPrivate = event.isPrivateEmail { account.isPrivateEmail = isPrivate }
            try accounts.save(account)
        case .consentRevoked:
            // The user stopped using Sign in with Apple here: tokens and sessions go, the
            // account (and its purchases) stay until they sign in again or ask for deletion.
            _ = try sessions.endAll(userId: userId)
            try accounts.deleteRefreshToken(userId: userId)
        case .accountDelete, .accountDeleted:
            _ = try accounts.delete(userId: userId, sub: event.sub, sessions: sessions, now: now)
        }
        return (.processed, userId)
    }
}
