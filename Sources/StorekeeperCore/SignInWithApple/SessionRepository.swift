import FoundationEssentials
import OpenSSLCrypto

/// Signed-in sessions: an opaque random id handed to the browser (cookie) or the app, kept
/// in the store only as its SHA-256, so a copy of the store opens no session.
public struct SessionRepository {
    public static let lifetime: Duration = .seconds(30 * 24 * 3600)

    public struct Session: StoreRecord, Sendable, Equatable {
        public var userId: String
        public var createdAt: Int64
        public var expiresAt: Int64
    }

    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    /// Opens a session; returns its id (256 random bits, hex) and when it ends.
    public func open(userId: String, now: Date) throws -> (id: String, expiresAt: Date) {
        let id = RandomToken.hex256()
        let digest = Self.digest(id)
        let expiresAt = now.millisecondsSince1970.saturatingAdding(Self.lifetime.wholeMilliseconds)
        let session = Session(userId: userId, createdAt: now.millisecondsSince1970, expiresAt: expiresAt)
        try store.set(StoreKeys.session(digest: digest), record: session, expiresIn: Self.lifetime)
        try store.addToSet(StoreKeys.userSessions(userId), digest)
        return (id, Date(millisecondsSince1970: expiresAt))
    }

    /// The session with this id, if it exists and has not ended.
    public func session(id: String, now: Date) throws -> Session? {
        guard let session = try store.get(StoreKeys.session(digest: Self.digest(id)), as: Session.self) else { return nil }
        return session.expiresAt > now.millisecondsSince1970 ? session : nil
    }

    /// Ends every session of the user; returns how many were still open.
    public func endAll(userId: String) throws -> Int {
        var ended = 0
        for digest in try store.setMembers(StoreKeys.userSessions(userId)) {
            if try store.delete(StoreKeys.session(digest: digest)) { ended += 1 }
            try store.removeFromSet(StoreKeys.userSessions(userId), digest)
        }
        return ended
    }

    /// Ends the user's sessions opened at or before `time` (ms); later ones stay. Returns how
    /// many were ended. A session record that does not decode is ended (an unknown age is
    /// treated as old: signing somebody out is the safe mistake).
    public func endAll(userId: String, createdAtOrBefore time: Int64) throws -> Int {
        var ended = 0
        for digest in try store.setMembers(StoreKeys.userSessions(userId)) {
            let key = StoreKeys.session(digest: digest)
            if let stored = try store.get(key) {
                if let session = try? Session(storeBytes: stored.bytes), session.createdAt > time { continue }
                if try store.delete(key) { ended += 1 }
            }
            try store.removeFromSet(StoreKeys.userSessions(userId), digest)
        }
        return ended
    }

    static func digest(_ id: String) -> String {
        Hex.encode(Digest.sha256(Array(id.utf8)))
    }
}
