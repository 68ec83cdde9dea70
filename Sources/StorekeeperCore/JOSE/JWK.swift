import OpenSSLCrypto

/// A JSON Web Key (RFC 7517) as Apple publishes them at `/auth/keys`, and as the RFC 7515
/// examples give them. Only the public parts are read.
public struct JWK: Codable, Sendable, Equatable {
    public var kty: String
    public var kid: String?
    public var use: String?
    public var alg: String?
    /// RSA modulus and exponent, base64url.
    public var n: String?
    public var e: String?
    /// EC curve and coordinates, base64url.
    public var crv: String?
    public var x: String?
    public var y: String?

    public init(kty: String, kid: String? = nil, use: String? = nil, alg: String? = nil,
                n: String? = nil, e: String? = nil, crv: String? = nil, x: String? = nil, y: String? = nil) {
        self.kty = kty
        self.kid = kid
        self.use = use
        self.alg = alg
        self.n = n
        self.e = e
        self.crv = crv
        self.x = x
        self.y = y
    }

    /// The RSA public key this JWK describes, for RS256.
    public func rsaPublicKey() throws(JWKError) -> RSAPublicKey {
        guard kty == "RSA" else { throw JWKError("key type is \(kty), not RSA") }
        guard let n, let e, let modulus = Base64URL.decode(n), let exponent = Base64URL.decode(e) else {
            throw JWKError("RSA key without valid base64url n and e")
        }
        do {
            return try RSAPublicKey(modulus: modulus, exponent: exponent)
        } catch {
            throw JWKError("RSA key rejected: \(error)")
        }
    }

    /// The P-256 public key this JWK describes, for ES256.
    public func ecPublicKey() throws(JWKError) -> ECPublicKey {
        guard kty == "EC", crv == "P-256" else { throw JWKError("key is not an EC P-256 key") }
        guard let x, let y, let xBytes = Base64URL.decode(x), let yBytes = Base64URL.decode(y),
              xBytes.count == 32, yBytes.count == 32
        else { throw JWKError("EC key without valid 32-byte x and y") }
        do {
            return try ECPublicKey(x: xBytes, y: yBytes)
        } catch {
            throw JWKError("EC key rejected: \(error)")
        }
    }
}
