import FoundationEssentials
import OpenSSLCrypto

/// The `state` and `nonce` of a web sign-in between `siwa-start` and `siwa-callback`, bound
/// to the browser that started it.
///
/// The state, unguessable and single-use, is the key. On its own it does not say *which*
/// browser may finish the sign-in: an attacker could start one, stop before the form_post and
/// make a victim's browser post the attacker's `code` and `state` (login CSRF). So `begin`
/// also makes a pre-authorization secret for a cookie, and keeps only its SHA-256 with the
/// state; `consume` refuses a state whose cookie is missing or different *before* deleting
/// it, so a forged post spends nothing of the legitimate browser's. Of two callbacks racing
/// with one state only the one whose delete removed it proceeds.
public struct AuthorizationStateRepository {
    public static let lifetime: Duration = .seconds(600)

    public struct Pending: StoreRecord, Sendable, Equatable {
        public var nonce: String
        public var createdAt: Int64
        /// SHA-256 (hex) of the pre-authorization cookie's value. Nil in a state written
        /// before browsers were bound: such a state is refused (it lives ten minutes at most,
        /// and the user only has to start again).
        public var browserBinding: String?
    }

    /// What `consume` found.
    public enum Consumed: Sendable, Equatable {
        /// The state was this browser's and is now spent.
        case consumed(Pending)
        /// Unknown, expired or already used (a replay); or not a state at all.
        case unknown
        /// The state exists but the browser's cookie is missing or is another browser's: it
        /// stays as it was, for the browser that started it.
        case otherBrowser
    }

    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    /// A new state and nonce, kept for `lifetime`, and the secret for the browser's
    /// pre-authorization cookie (256 random bits, hex; only its digest is kept).
    public func begin(now: Date) throws -> (state: String, nonce: String, browserSecret: String) {
        let state = RandomToken.hex256()
        let nonce = RandomToken.hex256()
        let browserSecret = RandomToken.hex256()
        let pending = Pending(nonce: nonce, createdAt: now.millisecondsSince1970, browserBinding: Self.digest(browserSecret))
        try store.set(StoreKeys.authorizationState(state), record: pending, expiresIn: Self.lifetime)
        return (state, nonce, browserSecret)
    }

    /// The pending sign-in for `state`, removed so it cannot be used again, when
    /// `browserSecret` (the pre-authorization cookie's value) is the one `begin` made for it.
    /// A missing or different secret leaves the state in place.
    public func consume(_ state: String, browserSecret: String?) throws -> Consumed {
        guard Self.isState(state) else { return .unknown }
        let key = StoreKeys.authorizationState(state)
        guard let pending = try store.get(key, as: Pending.self) else { return .unknown }
        guard let browserSecret, let binding = pending.browserBinding,
              ConstantTime.equals(Self.digest(browserSecret), binding) else { return .otherBrowser }
        guard try store.delete(key) else { return .unknown }
        return .consumed(pending)
    }

    /// A state is 64 hex digits; anything else is not ours (and must not shape a key).
    static func isState(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    static func digest(_ secret: String) -> String {
        Hex.encode(Digest.sha256(Array(secret.utf8)))
    }
}
