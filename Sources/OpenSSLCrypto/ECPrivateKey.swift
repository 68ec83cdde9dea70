internal import COpenSSL

/// A P-256 private key that makes ES256 signatures: the App Store Connect API key (.p8)
/// and the Sign in with Apple client-secret key.
///
/// Immutable after init, so one instance can be shared across tasks.
public final class ECPrivateKey: @unchecked Sendable {
    let key: EVPPKey
    /// The matching public key, derived once at load time.
    public let publicKey: ECPublicKey

    private init(key: EVPPKey) throws(CryptoError) {
        guard key.isP256 else {
            throw CryptoError(operation: "load P-256 private key", message: "not an EC P-256 key")
        }
        // Affine coordinates rather than the encoded point: they do not depend on the
        // point form (compressed or not) the key was stored with.
        let x = try key.bigNumberParameter(OSSL_PKEY_PARAM_EC_PUB_X).bigEndianBytes(paddedTo: 32)
        let y = try key.bigNumberParameter(OSSL_PKEY_PARAM_EC_PUB_Y).bigEndianBytes(paddedTo: 32)
        self.publicKey = try ECPublicKey(x: x, y: y)
        self.key = key
    }

    /// A fresh random key.
    public static func generateP256() throws(CryptoError) -> ECPrivateKey {
        try OpenSSL.initialise()
        let key = try EVPPKey.generate(keyType: "EC") { context throws(CryptoError) in
            try OpenSSL.check(EVP_PKEY_CTX_set_group_name(context, "P-256"), "EVP_PKEY_CTX_set_group_name")
        }
        return try ECPrivateKey(key: key)
    }

    /// From PEM: a PKCS#8 "PRIVATE KEY" block (the App Store Connect .p8 format) or a SEC1
    /// "EC PRIVATE KEY" block. Unencrypted only.
    public convenience init(pem: String) throws(CryptoError) {
        try OpenSSL.initialise()
        let block = try PEMBlock.first(
            in: pem, labels: ["PRIVATE KEY", "EC PRIVATE KEY"], describing: "EC private key")
        try self.init(key: EVPPKey.decodePrivateKey(type: EVP_PKEY_EC, block.der))
    }

    /// Signs `message` with ES256; returns the JWS form r || s, 64 bytes.
    public func signES256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let der = try key.signSHA256(message, scheme: .ecdsa)
        return try ECDSASignatureEncoding.derToRaw(der, coordinateByteCount: 32)
    }

    /// Signs `message` with ECDSA over SHA-256; returns the DER form (SEQUENCE of r and s),
    /// what the original promotional offer signature carries.
    public func signECDSASHA256DER(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try key.signSHA256(message, scheme: .ecdsa)
    }

    /// The key as unencrypted PKCS#8 PEM, the same shape as an App Store Connect .p8.
    public func pkcs8PEM() throws(CryptoError) -> String {
        try key.pkcs8PEM()
    }
}
