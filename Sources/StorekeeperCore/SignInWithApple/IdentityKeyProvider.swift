import FoundationEssentials

/// Where the verifier gets Apple's public key for a `kid`: `AppleKeyCache` in production
/// (the store, refreshed from `/auth/keys`); StorekeeperTesting's `StaticKeyProvider` in tests.
public protocol IdentityKeyProvider {
    /// The key with this id. Throws `unknown_key` when there is none (after whatever refresh
    /// the provider allows), `keys_unavailable` when no key set can be had at all.
    func key(for kid: String, now: Date) throws(IdentityTokenError) -> JWK
}
