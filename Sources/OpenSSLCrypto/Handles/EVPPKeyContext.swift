internal import COpenSSL

/// Owns one EVP_PKEY_CTX made by algorithm name, for key import (fromdata) and generation.
final class EVPPKeyContext {
    let pointer: OpaquePointer

    /// `algorithm` is a provider key type name: "EC" or "RSA".
    init(algorithm: String) throws(CryptoError) {
        pointer = try OpenSSL.check(
            EVP_PKEY_CTX_new_from_name(nil, algorithm, nil), "EVP_PKEY_CTX_new_from_name(\(algorithm))")
    }

    deinit { EVP_PKEY_CTX_free(pointer) }
}
