import Foundation
import StorekeeperCore

/// A fixed key set: the verifier's key source in tests and in the fuzz harness.
public struct StaticKeyProvider: IdentityKeyProvider {
    public let keys: JWKSet
    public init(_ keys: JWKSet) { self.keys = keys }
    public func key(for kid: String, now: Date) throws(IdentityTokenError) -> JWK {
        guard let key = keys.key(withID: kid) else { throw IdentityTokenError(.unknownKey, "no key with kid \(kid.prefix(64))") }
        return key
    }
}
