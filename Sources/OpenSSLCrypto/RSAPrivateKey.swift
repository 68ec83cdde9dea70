internal import COpenSSL

/// An RSA private key that makes RS256 signatures. Storekeeper itself never signs with
/// RSA; the tests' fake Apple ID server uses it to issue identity tokens.
///
/// Immutable after init, so one instance can be shared across tasks.
public final class RSAPrivateKey: @unchecked Sendable {
    let key: EVPPKey
    /// The matching public key, derived once at load time.
    public let publicKey: RSAPublicKey

    private init(key: EVPPKey) throws(CryptoError) {
        guard key.isA("RSA") else {
            throw CryptoError(operation: "load RSA private key", message: "not an RSA key")
        }
        self.publicKey = try RSAPublicKey(components: key)
        self.key = key
    }

    /// A fresh random key of `bits` (2048 to 16384).
    public static func generate(bits: Int = 2048) throws(CryptoError) -> RSAPrivateKey {
        try OpenSSL.initialise()
        guard bits >= RSAPublicKey.minimumModulusBits, bits <= RSAPublicKey.maximumModulusBits else {
            throw CryptoError(operation: "generate RSA key", message: "\(bits) bits is outside 2048...16384")
        }
        let key = try EVPPKey.generate(keyType: "RSA") { context throws(CryptoError) in
            try OpenSSL.check(EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)), "EVP_PKEY_CTX_set_rsa_keygen_bits")
        }
        return try RSAPrivateKey(key: key)
    }

    /// From PEM: a PKCS#8 "PRIVATE KEY" or PKCS#1 "RSA PRIVATE KEY" block. Unencrypted only.
    public convenience init(pem: String) throws(CryptoError) {
        try OpenSSL.initialise()
        let block = try PEMBlock.first(
            in: pem, labels: ["PRIVATE KEY", "RSA PRIVATE KEY"], describing: "RSA private key")
        try self.init(key: EVPPKey.decodePrivateKey(type: EVP_PKEY_RSA, block.der))
    }

    /// Signs `message` with RS256 (PKCS#1 v1.5, SHA-256); the signature is modulus-sized.
    public func signRS256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try key.signSHA256(message, scheme: .rsaPKCS1v15)
    }

    /// The key as unencrypted PKCS#8 PEM.
    public func pkcs8PEM() throws(CryptoError) -> String {
        try key.pkcs8PEM()
    }
}
