/// A JWK Set (RFC 7517 §5): `{"keys": [...]}`.
public struct JWKSet: Codable, Sendable, Equatable {
    public var keys: [JWK]

    public init(keys: [JWK]) { self.keys = keys }

    /// The key with this `kid`, if the set has it.
    public func key(withID kid: String) -> JWK? {
        keys.first { $0.kid == kid }
    }
}
