import FoundationEssentials

/// Where the verifier gets Apple's public key for a `kid`: `AppleKeyCache` in production
/// (the store, refreshed from `/auth/keys`), a fixed set in tests.
public protocol IdentityKeyProvider {
    /// The key with this id. Throws `unknown_key` when there is none (after whatever refresh
    /// the provider allows), `keys_unavailable` when no key set can be had at all.
    func key(for kid: String, now: Date) throws(IdentityTokenError) -> JWK
}

/// A fixed key set, for tests and tools.
public struct StaticKeyProvider: IdentityKeyProvider {
    public let keys: JWKSet
    public init(_ keys: JWKSet) { self.keys = keys }
    public func key(for kid: String, now: Date) throws(IdentityTokenError) -> JWK {
        guard let key = keys.key(withID: kid) else { throw IdentityTokenError(.unknownKey, "no key with kid \(kid.prefix(64))") }
        return key
    }
}
