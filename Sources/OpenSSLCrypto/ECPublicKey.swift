internal import COpenSSL

/// A P-256 public key that checks ES256 signatures (JWS "ES256", RFC 7518 §3.4): the key
/// of an App Store `x5c` leaf certificate, or of a JWK.
///
/// Immutable after init, so one instance can be shared across tasks.
public final class ECPublicKey: @unchecked Sendable, Equatable {
    /// How signatures are checked. A key given as its point (a JWK, the usual SPKI, an `x5c`
    /// leaf's key on the cached-chain path) goes through OpenSSL's low-level EC API, which
    /// fetches no provider: a fresh process pays 5M instructions for its first EVP fetch (see
    /// shim.h). A key OpenSSL decoded itself (an unusual SPKI, a certificate's) stays EVP.
    private enum Verifier {
        case point(ECKey)
        case evp(EVPPKey)
    }

    private let verifier: Verifier
    /// The DER SubjectPublicKeyInfo, as given or as built from the point.
    public let spkiDER: [UInt8]

    /// SubjectPublicKeyInfo header for id-ecPublicKey on prime256v1 followed by a 65-byte
    /// uncompressed point: SEQUENCE { SEQUENCE { OID 1.2.840.10045.2.1,
    /// OID 1.2.840.10045.3.1.7 }, BIT STRING (0 unused bits) }.
    private static let p256SPKIPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
        0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]
    private static let coordinateByteCount = 32

    init(key: EVPPKey, spkiDER: [UInt8]) {
        verifier = .evp(key)
        self.spkiDER = spkiDER
    }

    private init(point key: ECKey, spkiDER: [UInt8]) {
        verifier = .point(key)
        self.spkiDER = spkiDER
    }

    /// From a DER SubjectPublicKeyInfo. Anything but an EC key on P-256 is refused.
    public convenience init(spkiDER: [UInt8]) throws(CryptoError) {
        try OpenSSL.initialise()
        let prefix = Self.p256SPKIPrefix
        if spkiDER.count == prefix.count + 65, spkiDER.starts(with: prefix), spkiDER[prefix.count] == 0x04 {
            // The usual shape: import the point directly, skipping OpenSSL 3's decoder.
            try self.init(uncompressedPoint: Array(spkiDER[prefix.count...]))
        } else {
            try self.init(validating: EVPPKey.decodeSubjectPublicKeyInfo(spkiDER), spkiDER: spkiDER)
        }
    }

    /// From a "BEGIN PUBLIC KEY" PEM.
    public convenience init(pem: String) throws(CryptoError) {
        let block = try PEMBlock.first(in: pem, labels: ["PUBLIC KEY"], describing: "EC public key")
        try self.init(spkiDER: block.der)
    }

    /// From JWK coordinates (`x`, `y` of a "crv": "P-256" key, 32 bytes each). A point not
    /// on the curve is refused.
    public convenience init(x: [UInt8], y: [UInt8]) throws(CryptoError) {
        guard x.count == Self.coordinateByteCount, y.count == Self.coordinateByteCount else {
            throw CryptoError(
                operation: "import P-256 public key",
                message: "coordinates must be 32 bytes each (got \(x.count) and \(y.count))")
        }
        try self.init(uncompressedPoint: [0x04] + x + y)
    }

    /// `point` is 0x04 || x || y.
    private convenience init(uncompressedPoint point: [UInt8]) throws(CryptoError) {
        try OpenSSL.initialise()
        self.init(point: try ECKey(p256Point: point), spkiDER: Self.p256SPKIPrefix + point)
    }

    /// Wraps an already decoded key (from d2i_PUBKEY or a certificate) once it is known
    /// to be P-256.
    convenience init(validating key: EVPPKey, spkiDER: [UInt8]) throws(CryptoError) {
        guard key.isP256 else {
            throw CryptoError(
                operation: "import P-256 public key",
                message: "not an EC P-256 key (\(key.groupName ?? (key.isA("EC") ? "unknown curve" : "not EC")))")
        }
        self.init(key: key, spkiDER: spkiDER)
    }

    /// Checks a JWS ES256 signature: `raw` is r || s, 64 bytes. Any other length, a
    /// malformed value or a wrong signature is `false`.
    public func isValidES256Signature(_ raw: [UInt8], for message: [UInt8]) -> Bool {
        guard raw.count == 2 * Self.coordinateByteCount,
              let der = try? ECDSASignatureEncoding.rawToDER(raw)
        else { return false }
        switch verifier {
        case .point(let key):
            return key.verify(digest: Digest.sha256(message), derSignature: der)
        case .evp(let key):
            return (try? key.verifySHA256(der, message: message, scheme: .ecdsa)) ?? false
        }
    }

    public static func == (lhs: ECPublicKey, rhs: ECPublicKey) -> Bool {
        lhs.spkiDER == rhs.spkiDER
    }
}
