internal import COpenSSL

/// An RSA public key that checks RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256,
/// RFC 7518 §3.3): Sign in with Apple identity tokens, against a key from Apple's JWKS
/// (https://appleid.apple.com/auth/keys).
///
/// Immutable after init, so one instance can be shared across tasks.
public final class RSAPublicKey: @unchecked Sendable, Equatable {
    /// Smaller moduli are refused (RFC 7518 §3.3 requires at least 2048 bits).
    public static let minimumModulusBits = 2048
    /// OpenSSL's own ceiling; larger keys only cost time.
    public static let maximumModulusBits = 16384

    let key: EVPPKey
    /// Big-endian, without leading zeros (a JWK's `n`).
    public let modulus: [UInt8]
    /// Big-endian, without leading zeros (a JWK's `e`).
    public let exponent: [UInt8]

    /// From a JWK's `n` and `e` (already base64url-decoded).
    public init(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) {
        try OpenSSL.initialise()
        let n = Array(modulus.drop { $0 == 0 })
        let e = Array(exponent.drop { $0 == 0 })
        let bits = n.first.map { (n.count - 1) * 8 + (8 - $0.leadingZeroBitCount) } ?? 0
        guard bits >= Self.minimumModulusBits, bits <= Self.maximumModulusBits else {
            throw CryptoError(
                operation: "import RSA public key",
                message: "modulus of \(bits) bits is outside \(Self.minimumModulusBits)...\(Self.maximumModulusBits)")
        }
        // An even or unit exponent is not a usable RSA key; more than 64 bits is refused
        // by OpenSSL for large moduli anyway.
        guard let last = e.last, last & 1 == 1, e != [1], e.count <= 8 else {
            throw CryptoError(operation: "import RSA public key", message: "unusable public exponent")
        }
        self.key = try EVPPKey.fromData(
            keyType: "RSA", selection: EVPPKey.publicKeySelection,
            [.unsignedInteger(OSSL_PKEY_PARAM_RSA_N, bigEndian: n), .unsignedInteger(OSSL_PKEY_PARAM_RSA_E, bigEndian: e)])
        self.modulus = n
        self.exponent = e
    }

    /// From PEM: SubjectPublicKeyInfo "BEGIN PUBLIC KEY" or PKCS#1 "BEGIN RSA PUBLIC KEY".
    public convenience init(pem: String) throws(CryptoError) {
        try OpenSSL.initialise()
        let block = try PEMBlock.first(in: pem, labels: ["PUBLIC KEY", "RSA PUBLIC KEY"], describing: "RSA public key")
        let decoded = block.label == "PUBLIC KEY"
            ? try EVPPKey.decodeSubjectPublicKeyInfo(block.der)
            : try EVPPKey.decodePKCS1RSAPublicKey(block.der)
        try self.init(components: decoded)
    }

    /// Re-imports a decoded key from its n and e, so every instance goes through the same
    /// size and exponent checks.
    convenience init(components key: EVPPKey) throws(CryptoError) {
        guard key.isA("RSA") else {
            throw CryptoError(operation: "import RSA public key", message: "not an RSA key")
        }
        try self.init(
            modulus: key.bigNumberParameter(OSSL_PKEY_PARAM_RSA_N).bigEndianBytes,
            exponent: key.bigNumberParameter(OSSL_PKEY_PARAM_RSA_E).bigEndianBytes)
    }

    /// Checks an RS256 signature. A signature whose length is not the modulus length
    /// (RFC 8017 §8.2.2 step 1), a malformed one, or a wrong one is `false`.
    public func isValidRS256Signature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == modulus.count else { return false }
        return (try? key.verifySHA256(signature, message: message, scheme: .rsaPKCS1v15)) ?? false
    }

    public static func == (lhs: RSAPublicKey, rhs: RSAPublicKey) -> Bool {
        lhs.modulus == rhs.modulus && lhs.exponent == rhs.exponent
    }
}
