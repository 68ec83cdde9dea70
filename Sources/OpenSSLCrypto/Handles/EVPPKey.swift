internal import COpenSSL

/// Owns one EVP_PKEY reference: a public key, or a private key with its public half.
///
/// Immutable once made; OpenSSL allows concurrent sign/verify operations on one EVP_PKEY.
final class EVPPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes over one reference (from d2i_*, EVP_PKEY_fromdata, keygen or X509_get_pubkey).
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }

    /// Provider key type test ("EC", "RSA"); RSA-PSS keys are not "RSA".
    func isA(_ keyType: String) -> Bool {
        EVP_PKEY_is_a(pointer, keyType) == 1
    }

    /// The EC curve name ("prime256v1"), nil for non-EC keys.
    var groupName: String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &buffer, buffer.count, &length) == 1 else {
            OpenSSL.discardErrors()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// True for an EC key on P-256 (OpenSSL reports it as prime256v1).
    var isP256: Bool {
        guard isA("EC"), let groupName else { return false }
        return groupName == "prime256v1" || groupName == "P-256"
    }

    /// Size in bits of the key (the RSA modulus, the EC group order).
    var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// Upper bound of a signature's length in bytes (DER for ECDSA, the modulus for RSA).
    var maximumSignatureSize: Int { Int(EVP_PKEY_get_size(pointer)) }

    /// A numeric key parameter, e.g. "n"/"e" for RSA or "qx"/"qy" for EC.
    func bigNumberParameter(_ name: String) throws(CryptoError) -> BigNumber {
        var number: OpaquePointer? = nil
        try OpenSSL.check(EVP_PKEY_get_bn_param(pointer, name, &number), "EVP_PKEY_get_bn_param(\(name))")
        return BigNumber(owning: try OpenSSL.check(number, "EVP_PKEY_get_bn_param(\(name))"))
    }

    /// The key as an unencrypted PKCS#8 PEM (a "PRIVATE KEY" block).
    func pkcs8PEM() throws(CryptoError) -> String {
        let bio = try MemoryBIO()
        try OpenSSL.check(
            PEM_write_bio_PKCS8PrivateKey(bio.pointer, pointer, nil, nil, 0, nil, nil),
            "PEM_write_bio_PKCS8PrivateKey")
        return String(decoding: bio.contents, as: UTF8.self)
    }
}
