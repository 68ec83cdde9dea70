import Foundation
import OpenSSLCrypto
import StorekeeperCore

/// Apple-like identity tokens for the pure-logic tests, signed with the committed
/// Tests/Fixtures/pki/appleid-rsa.key (kid "test-key-1") or a fresh key.
struct AppleIDTestKeys {
    static let shared = try! AppleIDTestKeys()

    let signingKey: RSAPrivateKey
    let kid = "test-key-1"
    /// Apple's key as a JWK, as /auth/keys would publish it.
    var jwk: JWK { Self.jwk(signingKey.publicKey, kid: kid) }
    /// The public key PEM, the secret of the HS256 confusion attack.
    let publicKeyPEM: String

    init() throws {
        let directory = URL(fileURLWithPath: TestPKI.directory)
        signingKey = try RSAPrivateKey(pem: String(contentsOf: directory.appendingPathComponent("appleid-rsa.key"), encoding: .utf8))
        publicKeyPEM = try String(contentsOf: directory.appendingPathComponent("appleid-rsa.pub.pem"), encoding: .utf8)
    }

    static func jwk(_ key: RSAPublicKey, kid: String) -> JWK {
        JWK(kty: "RSA", kid: kid, use: "sig", alg: "RS256", n: Base64URL.encode(key.modulus), e: Base64URL.encode(key.exponent))
    }

    static let now = Date(timeIntervalSince1970: 1_780_272_000)
    static let nowSeconds = 1_780_272_000

    /// Claims of a good token for `com.example.web`, overridable.
    static func claims(_ overrides: [String: Any] = [:]) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": "https://appleid.apple.com", "aud": "com.example.web", "sub": "001234.abcdef.0001",
            "iat": nowSeconds - 10, "exp": nowSeconds + 600, "nonce": "n-123",
            "email": "jane@example.com", "email_verified": "true", "is_private_email": "false",
            "real_user_status": 2,
        ]
        for (key, value) in overrides { claims[key] = value }
        return claims
    }

    /// A compact JWS over `claims` with `header`, signed RS256 by `key` (the fixture key by default).
    func token(_ claims: [String: Any], header: [String: Any]? = nil, key: RSAPrivateKey? = nil) throws -> String {
        let head = Base64URL.encode(try JSONSerialization.data(withJSONObject: header ?? ["alg": "RS256", "kid": kid], options: [.sortedKeys]))
        let body = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        let signature = try (key ?? signingKey).signRS256(Array("\(head).\(body)".utf8))
        return "\(head).\(body).\(Base64URL.encode(signature))"
    }

    /// HS256 "signed" with the RSA public key PEM as the HMAC secret: the algorithm-confusion attack.
    func hs256WithPublicKey(_ claims: [String: Any]) throws -> String {
        let head = Base64URL.encode(try JSONSerialization.data(withJSONObject: ["alg": "HS256", "kid": kid], options: [.sortedKeys]))
        let body = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        let mac = HMACSHA256.mac(key: Array(publicKeyPEM.utf8), message: Array("\(head).\(body)".utf8))
        return "\(head).\(body).\(Base64URL.encode(mac))"
    }
}

/// HMAC-SHA256 (RFC 2104) over OpenSSLCrypto's SHA-256, for building attack tokens only.
enum HMACSHA256 {
    static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? Digest.sha256(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = Digest.sha256(block.map { $0 ^ 0x36 } + message)
        return Digest.sha256(block.map { $0 ^ 0x5c } + inner)
    }
}
