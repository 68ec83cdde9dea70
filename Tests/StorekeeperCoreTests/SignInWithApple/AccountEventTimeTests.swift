import Foundation
import OpenSSLCrypto
import StorekeeperCore
import Testing

/// A notification is signed by Apple but never expires: these are the replays the `jti`
/// alone does not stop (older than its window, or acting on what came after the event).
extension AccountTests {
    static let day: Int64 = 24 * 3600 * 1000

    @Test func theJtiIsRememberedAtLeastAsLongAsAnEventMayAct() {
        #expect(AccountEventProcessor.deduplicationWindow > AccountEventProcessor.maximumEventAge)
    }

    @Test(arguments: ["consent-revoked", "account-delete", "email-disabled"])
    func anEventOlderThanTheWindowIsRefusedAndDoesNothing(_ type: String) throws {
        let store = MemoryStore()
        let accounts = AccountRepository(store: store, dataKey: dataKey)
        let sessions = SessionRepository(store: store)
        // Everything here is older than the event: only its age stops it.
        let long = now.addingTimeInterval(-40 * 24 * 3600)
        let (account, _) = try accounts.findOrCreate(sub: "sub-stale", now: long)
        let (sessionId, _) = try sessions.open(userId: account.userId, now: now)
        try accounts.storeRefreshToken("r-token", clientId: "com.example.web", userId: account.userId, now: long)
        let processor = AccountEventProcessor(store: store)

        let stale = try notification(type, sub: "sub-stale", jti: "jti-stale-\(type)",
                                     eventTime: now.millisecondsSince1970 - 30 * Self.day - 1)
        #expect(try processor.process(stale, now: now).outcome == .staleEvent)
        #expect(try accounts.account(userId: account.userId)?.emailRelayEnabled == nil)
        #expect(try sessions.session(id: sessionId, now: now) != nil)
        #expect(try accounts.refreshToken(userId: account.userId) != nil)
        #expect(try store.get(StoreKeys.accountNotification("jti-stale-\(type)")) == nil, "a refused event is not remembered")

        // Just inside the window it acts (on what is older than it).
        let recent = try notification(type, sub: "sub-stale", jti: "jti-recent-\(type)",
                                      eventTime: now.millisecondsSince1970 - 30 * Self.day + 60_000)
        #expect(try processor.process(recent, now: now).outcome == .processed)
    }

    @Test func withoutAnEventTimeTheNotificationsIssueTimeIsItsAge() throws {
        let store = MemoryStore()
        let accounts = AccountRepository(store: store, dataKey: dataKey)
        let (account, _) = try accounts.findOrCreate(sub: "sub-no-time", now: now.addingTimeInterval(-60 * 24 * 3600))
        let processor = AccountEventProcessor(store: store)
        let old = try notification("account-delete", sub: "sub-no-time", jti: "jti-no-time-old", omitEventTime: true,
                                   iat: Int(now.timeIntervalSince1970) - 31 * 24 * 3600)
        #expect(try processor.process(old, now: now).outcome == .staleEvent)
        #expect(try accounts.account(userId: account.userId) != nil)
        let fresh = try notification("account-delete", sub: "sub-no-time", jti: "jti-no-time-new", omitEventTime: true)
        #expect(try processor.process(fresh, now: now).outcome == .processed)
        #expect(try accounts.account(userId: account.userId) == nil)
    }

    @Test func consentRevokedEndsOnlyTheSessionsAndTokenFromBeforeIt() throws {
        let store = MemoryStore()
        let accounts = AccountRepository(store: store, dataKey: dataKey)
        let sessions = SessionRepository(store: store)
        let revokedAt = now.addingTimeInterval(-10 * 24 * 3600)
        let (account, _) = try accounts.findOrCreate(sub: "sub-revoked", now: revokedAt.addingTimeInterval(-3600))
        let (before, _) = try sessions.open(userId: account.userId, now: revokedAt.addingTimeInterval(-60))
        let (atTheTime, _) = try sessions.open(userId: account.userId, now: revokedAt)
        let (after, _) = try sessions.open(userId: account.userId, now: revokedAt.addingTimeInterval(60))
        // The user signed in again after revoking: a new consent, a new token.
        try accounts.storeRefreshToken("r-after", clientId: "com.example.web", userId: account.userId, now: revokedAt.addingTimeInterval(60))

        let event = try notification("consent-revoked", sub: "sub-revoked", jti: "jti-revoked", eventTime: revokedAt.millisecondsSince1970)
        #expect(try AccountEventProcessor(store: store).process(event, now: now).outcome == .processed)
        #expect(try sessions.session(id: before, now: now) == nil)
        #expect(try sessions.session(id: atTheTime, now: now) == nil)
        #expect(try sessions.session(id: after, now: now) != nil, "a session opened after the event survives it")
        #expect(try accounts.refreshToken(userId: account.userId)?.token == "r-after")
        #expect(try store.setMembers(StoreKeys.userSessions(account.userId)).count == 1)

        // A token from before the event goes.
        try accounts.storeRefreshToken("r-before", clientId: "com.example.web", userId: account.userId, now: revokedAt.addingTimeInterval(-1))
        let again = try notification("consent-revoked", sub: "sub-revoked", jti: "jti-revoked-2", eventTime: revokedAt.millisecondsSince1970)
        #expect(try AccountEventProcessor(store: store).process(again, now: now).outcome == .processed)
        #expect(try accounts.refreshToken(userId: account.userId) == nil)
    }

    @Test func anAccountCreatedAfterAnAccountDeleteIsNotDeleted() throws {
        let store = MemoryStore()
        let accounts = AccountRepository(store: store, dataKey: dataKey)
        let sessions = SessionRepository(store: store)
        let deletedAt = now.addingTimeInterval(-5 * 24 * 3600)
        let (account, _) = try accounts.findOrCreate(sub: "sub-newer", now: deletedAt.addingTimeInterval(1))
        let (sessionId, _) = try sessions.open(userId: account.userId, now: now)
        let processor = AccountEventProcessor(store: store)

        for type in ["account-delete", "account-deleted"] {
            let event = try notification(type, sub: "sub-newer", jti: "jti-newer-\(type)", eventTime: deletedAt.millisecondsSince1970)
            #expect(try processor.process(event, now: now).outcome == .superseded)
            #expect(try processor.process(event, now: now).outcome == .duplicate)
        }
        #expect(try accounts.account(userId: account.userId) != nil)
        #expect(try accounts.userId(sub: "sub-newer") == account.userId)
        #expect(try sessions.session(id: sessionId, now: now) != nil)
        #expect(try !accounts.wasDeleted(userId: account.userId))

        // An account-delete from after its creation deletes it.
        let real = try notification("account-delete", sub: "sub-newer", jti: "jti-newer-real", eventTime: now.millisecondsSince1970)
        #expect(try processor.process(real, now: now).outcome == .processed)
        #expect(try accounts.account(userId: account.userId) == nil)
    }

    @Test func emailEventsApplyNewestEventTimeFirstWhateverTheOrder() throws {
        let store = MemoryStore()
        let accounts = AccountRepository(store: store, dataKey: dataKey)
        let (account, _) = try accounts.findOrCreate(sub: "sub-email", now: now.addingTimeInterval(-3 * 24 * 3600))
        let processor = AccountEventProcessor(store: store)
        let t = now.millisecondsSince1970 - 2 * Self.day

        let disabledLater = try notification("email-disabled", sub: "sub-email", jti: "jti-email-2", email: "later@privaterelay.appleid.com",
                                             eventTime: t + 1000)
        let enabledEarlier = try notification("email-enabled", sub: "sub-email", jti: "jti-email-1", email: "earlier@privaterelay.appleid.com",
                                              eventTime: t)
        #expect(try processor.process(disabledLater, now: now).outcome == .processed)
        // Delivered late (or replayed under a new jti): older than what was applied.
        #expect(try processor.process(enabledEarlier, now: now).outcome == .superseded)
        var stored = try #require(try accounts.account(userId: account.userId))
        #expect(stored.emailRelayEnabled == false && stored.email == "later@privaterelay.appleid.com")
        #expect(stored.emailEventTime == t + 1000)

        let enabledNewest = try notification("email-enabled", sub: "sub-email", jti: "jti-email-3", eventTime: t + 2000)
        #expect(try processor.process(enabledNewest, now: now).outcome == .processed)
        stored = try #require(try accounts.account(userId: account.userId))
        #expect(stored.emailRelayEnabled == true)

        // An email event from before the account existed does not act on it.
        let beforeTheAccount = try notification("email-disabled", sub: "sub-email", jti: "jti-email-0",
                                                eventTime: now.millisecondsSince1970 - 4 * Self.day)
        #expect(try processor.process(beforeTheAccount, now: now).outcome == .superseded)
        #expect(try accounts.account(userId: account.userId)?.emailRelayEnabled == true)
    }

    @Test func anAccountRecordFromBeforeEmailEventTimesTakesTheNextEvent() throws {
        let store = MemoryStore()
        let userId = String(repeating: "c", count: 32)
        // As written before `emailEventTime` existed.
        let legacy = #"{"appAccountToken":"6f1c0f0e-8d4e-4a53-9a2b-1d5d2c4b7a10","createdAt":1000,"emailRelayEnabled":true,"lastSignInAt":1000,"sub":"sub-legacy","userId":"\#(userId)"}"#
        try store.set(StoreKeys.account(userId), Array(legacy.utf8), expiresIn: nil)
        try store.set(StoreKeys.appleSubject("sub-legacy"), Array(userId.utf8), expiresIn: nil)
        let event = try notification("email-disabled", sub: "sub-legacy", jti: "jti-legacy")
        #expect(try AccountEventProcessor(store: store).process(event, now: now).outcome == .processed)
        #expect(try AccountRepository(store: store, dataKey: nil).account(userId: userId)?.emailRelayEnabled == false)
    }
}
