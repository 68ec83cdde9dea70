internal import COpenSSL

/// Owns one reference on an X509 certificate object.
final class X509Reference: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes over a reference the caller already holds (d2i_X509's result).
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Takes a new reference on a certificate owned elsewhere (a stack's element).
    init(retaining pointer: OpaquePointer) throws(CryptoError) {
        try OpenSSL.check(X509_up_ref(pointer), "X509_up_ref")
        self.pointer = pointer
    }

    deinit { X509_free(pointer) }
}
