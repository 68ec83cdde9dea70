internal import COpenSSL

/// Owns one EVP_CIPHER_CTX: the state of a single encryption or decryption. One is made per
/// operation so key objects stay immutable and shareable.
final class EVPCipherContext {
    let pointer: OpaquePointer

    init() throws(CryptoError) {
        pointer = try OpenSSL.check(EVP_CIPHER_CTX_new(), "EVP_CIPHER_CTX_new")
    }

    deinit { EVP_CIPHER_CTX_free(pointer) }
}
