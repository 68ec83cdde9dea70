import FoundationEssentials

/// Acts on Apple's server-to-server account notifications, once per `jti`, and never on
/// anything newer than the event.
///
/// A notification is signed by Apple but carries no expiry, so whoever holds an old one can
/// post it again. The `jti` stops a replay only while it is remembered; after that, the
/// event's own time does: an event older than `maximumEventAge` is refused (`stale_event`),
/// and `deduplicationWindow` is longer than that, so every event young enough to act is one
/// whose `jti` is still remembered. Within the window, an event acts only on what existed at
/// its `event_time`: a consent-revoked ends the sessions and the refresh token from before
/// it, an account-delete deletes an account created before it, and the email events apply
/// newest `event_time` first.
public struct AccountEventProcessor {
    /// Events whose `event_time` is older than this are refused.
    public static let maximumEventAge: Duration = .seconds(30 * 24 * 3600)
    /// How long a notification id is remembered: the age limit and a day more, so Apple's
    /// clock running ahead of ours cannot open a gap between the two.
    public static let deduplicationWindow: Duration = .seconds(31 * 24 * 3600)

    public enum Outcome: String, Sendable {
        case processed
        case duplicate
        /// A type this version does not know: acknowledged, nothing done.
        case ignored
        /// No user with this `sub` (never signed in here, or already deleted).
        case unknownUser = "unknown_user"
        /// The event is older than `maximumEventAge`: refused, nothing done. Acknowledged
        /// (HTTP 200) all the same, since asking Apple to send it again would not make it younger.
        case staleEvent = "stale_event"
        /// What the event would change is newer than the event (an account created after an
        /// account-delete, an email setting from a later event): nothing done.
        case superseded
    }

    private let store: any KeyValueStore
    private let accounts: AccountRepository
    private let sessions: SessionRepository

    public init(store: any KeyValueStore) {
        self.store = store
        self.accounts = AccountRepository(store: store, dataKey: nil)
        self.sessions = SessionRepository(store: store)
    }

    /// When the event happened, in milliseconds: Apple's `event_time`; for an event without
    /// one, the notification's `iat` (the latest it can have happened), so it is still aged.
    public static func eventTime(of notification: AppleIDNotification) -> Int64 {
        if let eventTime = notification.event.eventTime { return eventTime }
        let (milliseconds, overflow) = notification.iat.multipliedReportingOverflow(by: 1000)
        return overflow ? (notification.iat < 0 ? .min : .max) : milliseconds
    }

    /// Every action is idempotent, so the id is remembered after acting: a crash in between
    /// means Apple's retry acts again, never that an event is lost.
    public func process(_ notification: AppleIDNotification, now: Date) throws -> (outcome: Outcome, userId: String?) {
        let eventTime = Self.eventTime(of: notification)
        // Before the store is read: a stale event is refused whatever it is.
        if eventTime < now.millisecondsSince1970.saturatingAdding(-Self.maximumEventAge.wholeMilliseconds) {
            return (.staleEvent, nil)
        }
        let seenKey = StoreKeys.accountNotification(notification.jti)
        if try store.get(seenKey) != nil { return (.duplicate, nil) }
        let outcome = try act(notification.event, at: eventTime, now: now)
        if !(try store.setIfAbsent(seenKey, Array(notification.event.type.utf8), expiresIn: Self.deduplicationWindow)) {
            return (.duplicate, outcome.userId)
        }
        return outcome
    }

    private func act(_ event: AppleIDEvent, at eventTime: Int64, now: Date) throws -> (outcome: Outcome, userId: String?) {
        guard let type = event.typeValue else { return (.ignored, nil) }
        guard let userId = try accounts.userId(sub: event.sub) else { return (.unknownUser, nil) }
        switch type {
        case .emailEnabled, .emailDisabled:
            let applied = try accounts.updateEmailSettings(userId: userId, eventTime: eventTime) { account in
                account.emailRelayEnabled = type == .emailEnabled
                if let email = event.email { account.email = email }
                if let isPrivate = event.isPrivateEmail { account.isPrivateEmail = isPrivate }
            }
            switch applied {
            case .applied: break
            case .noAccount: return (.unknownUser, userId)
            case .newer: return (.superseded, userId)
            }
        case .consentRevoked:
            // The user stopped using Sign in with Apple here: the tokens and sessions from
            // before go, the account (and its purchases) stay until they sign in again or ask
            // for deletion. A session or token from a later sign-in is a later consent.
            _ = try sessions.endAll(userId: userId, createdAtOrBefore: eventTime)
            try accounts.deleteRefreshToken(userId: userId, storedAtOrBefore: eventTime)
        case .accountDelete, .accountDeleted:
            // The account record may be gone already (a deletion killed midway, finished now).
            if let account = try accounts.account(userId: userId), account.createdAt > eventTime {
                return (.superseded, userId)
            }
            _ = try accounts.delete(userId: userId, sub: event.sub, sessions: sessions, now: now)
        }
        return (.processed, userId)
    }
}
