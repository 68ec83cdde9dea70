import FoundationEssentials

/// The `state` and `nonce` of a web sign-in between `siwa-start` and `siwa-callback`.
///
/// Apple's callback is a cross-site POST, so a SameSite cookie would not come back: the
/// state itself, unguessable and single-use, is the key. Consuming deletes it, and of two
/// callbacks racing with one state only the one whose delete removed it proceeds.
public struct AuthorizationStateRepository {
    public static let lifetime: Duration = .seconds(600)

    public struct Pending: Codable, Sendable, Equatable {
        public var nonce: String
        public var createdAt: Int64
    }

    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    /// A new state and nonce, kept for `lifetime`.
    public func begin(now: Date) throws -> (state: String, nonce: String) {
        let state = RandomToken.hex256()
        let nonce = RandomToken.hex256()
        try store.set(StoreKeys.authorizationState(state),
                      try StoreCoding.encode(Pending(nonce: nonce, createdAt: now.millisecondsSince1970)),
                      expiresIn: Self.lifetime)
        return (state, nonce)
    }

    /// The pending sign-in for `state`, removed so it cannot be used again; nil when unknown,
    /// expired or already used.
    public func consume(_ state: String) throws -> Pending? {
        // A state is 64 hex digits; anything else is not ours (and must not shape a key).
        guard state.count == 64, state.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        let key = StoreKeys.authorizationState(state)
        guard let stored = try store.get(key) else { return nil }
        guard try store.delete(key) else { return nil }
        return try StoreCoding.decode(Pending.self, stored.bytes, key: key)
    }
}
