import FoundationEssentials
import OpenSSLCrypto

/// Users who sign in with Apple, in the store: the account record, the `sub` → user index,
/// the encrypted refresh token, and account deletion.
public struct AccountRepository {
    /// What `delete` removed, for the caller's answer.
    public struct Deletion: Sendable, Equatable {
        public var userId: String
        public var sessionsEnded: Int
        public var refreshTokenDeleted: Bool
        public var accountDeleted: Bool
    }

    /// The refresh token as kept: sealed with the data key, bound to its user by the
    /// associated data, with the client id it was issued to (a revoke must name the same one).
    struct StoredRefreshToken: StoreRecord {
        var clientId: String
        /// base64url of nonce || ciphertext || tag.
        var sealed: String
        var storedAt: Int64
    }

    /// Left behind when an account is deleted: no personal data, only what the books need
    /// to explain the purchases that stay (their appAccountToken).
    struct DeletionRecord: StoreRecord {
        var deletedAt: Int64
        var appAccountToken: String
    }

    private let store: any KeyValueStore
    private let dataKey: AESGCMKey?

    /// `dataKey` may be nil for callers that never touch refresh tokens (notifications).
    public init(store: any KeyValueStore, dataKey: AESGCMKey?) {
        self.store = store
        self.dataKey = dataKey
    }

    /// True for the ids `findOrCreate` makes (`RandomToken.hex128()`: 32 lowercase hex digits),
    /// so a caller's id can be checked before it becomes part of a store key.
    public static func isUserId(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    public func account(userId: String) throws -> AppleAccount? {
        try store.get(StoreKeys.account(userId), as: AppleAccount.self)
    }

    public func userId(sub: String) throws -> String? {
        try store.get(StoreKeys.appleSubject(sub)).map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    public func save(_ account: AppleAccount) throws {
        try store.set(StoreKeys.account(account.userId), record: account, expiresIn: nil)
    }

    /// What `updateEmailSettings` did.
    public enum EmailUpdate: Sendable, Equatable {
        case applied
        case noAccount
        /// The account was created after the event, or a later email event was applied already.
        case newer
    }

    /// Applies an email event of `eventTime` (ms) unless the account is newer than it: newest
    /// `event_time` wins, whatever order the events arrive in. Written with compare-and-set,
    /// so of two events applied at once the later one's setting stays.
    public func updateEmailSettings(userId: String, eventTime: Int64, _ change: (inout AppleAccount) -> Void) throws -> EmailUpdate {
        try store.update(StoreKeys.account(userId), as: AppleAccount.self, attempts: 8) { (current) throws(StoreError) in
            guard var account = current else { return .keep(.noAccount) }
            if account.createdAt > eventTime { return .keep(.newer) }
            if let applied = account.emailEventTime, applied >= eventTime { return .keep(.newer) }
            change(&account)
            account.emailEventTime = eventTime
            return .write(account, .applied)
        }
    }

    /// The user for this `sub`, created when new: a fresh user id and appAccountToken, the
    /// token registered so purchases carrying it are linked. `filling` completes a new record
    /// before its one write (the first-login name comes only once). Concurrent first sign-ins
    /// of one person create one user: the account record is written first, its token linked,
    /// then the `sub` index (setIfAbsent); a loser removes its own record and takes the
    /// winner's, which exists by then. A process killed anywhere leaves either no index (the
    /// next sign-in starts over) or a complete, linked user. An index left pointing at a
    /// deleted user (a deletion killed before its last step) is taken over.
    public func findOrCreate(sub: String, now: Date,
                             filling: (inout AppleAccount) -> Void = { _ in }) throws -> (account: AppleAccount, created: Bool) {
        let indexKey = StoreKeys.appleSubject(sub)
        var staleIndexVersion: Int64?
        if let indexed = try store.get(indexKey) {
            let userId = String(decoding: indexed.bytes, as: UTF8.self)
            if let existing = try account(userId: userId) { return (existing, false) }
            if try wasDeleted(userId: userId) { staleIndexVersion = indexed.version }
        }
        var account = AppleAccount(userId: RandomToken.hex128(), sub: sub, appAccountToken: UUID().uuidString.lowercased(),
                                   createdAt: now.millisecondsSince1970)
        filling(&account)
        try save(account)
        _ = try EntitlementRepository(store: store).assign(appAccountToken: account.appAccountToken, toUser: account.userId)
        guard try store.compareAndSet(indexKey, Array(account.userId.utf8), expectedVersion: staleIndexVersion, expiresIn: nil) else {
            try store.delete(StoreKeys.account(account.userId))
            guard let winner = try userId(sub: sub), let existing = try self.account(userId: winner) else {
                throw StoreError(.unavailable, "a concurrent first sign-in of the same user did not finish; try again")
            }
            return (existing, false)
        }
        return (account, true)
    }

    // MARK: Refresh tokens

    public func storeRefreshToken(_ token: String, clientId: String, userId: String, now: Date) throws {
        guard let dataKey else { throw StoreError(.failed, "no data key to seal refresh tokens with") }
        let sealed = try dataKey.seal(Array(token.utf8), authenticating: Self.associatedData(userId))
        let record = StoredRefreshToken(clientId: clientId, sealed: Base64URL.encode(sealed), storedAt: now.millisecondsSince1970)
        try store.set(StoreKeys.appleRefreshToken(userId), record: record, expiresIn: nil)
    }

    /// The refresh token in clear, with its client id; nil when none is kept.
    public func refreshToken(userId: String) throws -> (token: String, clientId: String)? {
        let key = StoreKeys.appleRefreshToken(userId)
        guard let record = try store.get(key, as: StoredRefreshToken.self) else { return nil }
        guard let dataKey else { throw StoreError(.failed, "no data key to open refresh tokens with") }
        guard let box = Base64URL.decode(record.sealed) else { throw StoreError(.failed, "the record at \(key) does not decode") }
        let clear = try dataKey.open(box, authenticating: Self.associatedData(userId))
        return (String(decoding: clear, as: UTF8.self), record.clientId)
    }

    /// What is kept for the user's refresh token, for the paths that must go on without it.
    public enum KeptRefreshToken: Sendable, Equatable {
        case none
        /// A record is there but cannot be opened (the data key changed, the record is
        /// damaged): as good as no token, and the caller may say so in its log.
        case unreadable
        case token(String, clientId: String)
    }

    /// Like `refreshToken(userId:)`, but a record that cannot be read (wrong data key, damaged
    /// record) is `.unreadable` instead of an error, so a session lookup or an account deletion
    /// is not blocked for ever by it. A missing data key and store failures still throw.
    public func keptRefreshToken(userId: String) throws -> KeptRefreshToken {
        let key = StoreKeys.appleRefreshToken(userId)
        guard let stored = try store.get(key) else { return .none }
        guard let dataKey else { throw StoreError(.failed, "no data key to open refresh tokens with") }
        guard let record = try? StoredRefreshToken(storeBytes: stored.bytes),
              let box = Base64URL.decode(record.sealed),
              let clear = try? dataKey.open(box, authenticating: Self.associatedData(userId)) else { return .unreadable }
        return .token(String(decoding: clear, as: UTF8.self), clientId: record.clientId)
    }

    @discardableResult
    public func deleteRefreshToken(userId: String) throws -> Bool {
        try store.delete(StoreKeys.appleRefreshToken(userId))
    }

    /// Deletes the refresh token unless it was stored after `time` (ms): a token from a later
    /// sign-in stands for a later consent. A record that does not decode is deleted (it is of
    /// no use, and an unknown age is treated as old).
    @discardableResult
    public func deleteRefreshToken(userId: String, storedAtOrBefore time: Int64) throws -> Bool {
        let key = StoreKeys.appleRefreshToken(userId)
        guard let stored = try store.get(key) else { return false }
        if let record = try? StoredRefreshToken(storeBytes: stored.bytes), record.storedAt > time {
            return false
        }
        return try store.delete(key)
    }

    /// True for the one caller per day that may check the refresh token against Apple.
    public func mayCheckRefreshToken(userId: String) throws -> Bool {
        try store.setIfAbsent(StoreKeys.appleRefreshCheck(userId), Array("1".utf8), expiresIn: .seconds(24 * 3600))
    }

    static func associatedData(_ userId: String) -> [UInt8] {
        Array(("siwa-refresh-token:" + userId).utf8)
    }

    // MARK: Deletion

    /// Deletes every piece of personal data kept for the user: the account record (email,
    /// name, `sub`), the `sub` index, the refresh token, every session. Keeps the purchase
    /// records and the appAccountToken → user mapping (the books need them), and leaves a
    /// deletion record without personal data. Safe to repeat, and safe to kill: the `sub`
    /// index goes last, so a rerun that finds the user by `sub` (Apple retrying a
    /// notification; pass `sub` then, the account record may be gone) finishes the job.
    public func delete(userId: String, sub: String? = nil, sessions: SessionRepository, now: Date) throws -> Deletion {
        let account = try account(userId: userId)
        let ended = try sessions.endAll(userId: userId)
        let tokenDeleted = try deleteRefreshToken(userId: userId)
        try store.delete(StoreKeys.appleRefreshCheck(userId))
        if let account {
            try store.set(StoreKeys.accountDeletion(userId),
                          record: DeletionRecord(deletedAt: now.millisecondsSince1970, appAccountToken: account.appAccountToken),
                          expiresIn: nil)
        }
        let accountDeleted = try store.delete(StoreKeys.account(userId))
        // Only the index entry that still points at this user: a newer account of the
        // same person keeps its own.
        if let indexedSub = account?.sub ?? sub, try self.userId(sub: indexedSub) == userId {
            try store.delete(StoreKeys.appleSubject(indexedSub))
        }
        return Deletion(userId: userId, sessionsEnded: ended, refreshTokenDeleted: tokenDeleted, accountDeleted: accountDeleted)
    }

    /// True when this user's account was deleted.
    public func wasDeleted(userId: String) throws -> Bool {
        try store.get(StoreKeys.accountDeletion(userId)) != nil
    }
}
