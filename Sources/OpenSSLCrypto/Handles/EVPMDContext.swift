internal import COpenSSL

/// Owns one EVP_MD_CTX: the state of a single digest-sign or digest-verify operation.
/// One is made per operation (a malloc) so the key objects stay immutable and shareable.
final class EVPMDContext {
    let pointer: OpaquePointer

    init() throws(CryptoError) {
        pointer = try OpenSSL.check(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
    }

    deinit { EVP_MD_CTX_free(pointer) }
}
