internal import COpenSSL

/// Owns one X509_STORE_CTX: the state of a single chain verification.
final class X509StoreContext {
    let pointer: OpaquePointer

    init() throws(CryptoError) {
        pointer = try OpenSSL.check(X509_STORE_CTX_new(), "X509_STORE_CTX_new")
    }

    deinit { X509_STORE_CTX_free(pointer) }
}
