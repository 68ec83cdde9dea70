internal import COpenSSL

/// Owns one X509_STORE: the set of trust anchors a chain must end at.
/// Read-only once filled; OpenSSL locks it internally for concurrent verifications.
final class X509Store: @unchecked Sendable {
    let pointer: OpaquePointer

    /// An empty store. Deliberately no X509_STORE_set_default_paths: the system's CA
    /// bundle must never become a trust anchor for Apple-signed data.
    init() throws(CryptoError) {
        pointer = try OpenSSL.check(X509_STORE_new(), "X509_STORE_new")
    }

    deinit { X509_STORE_free(pointer) }

    /// X509_STORE_add_cert up-refs the certificate; the caller keeps its own reference.
    func addTrustAnchor(_ certificate: X509Reference) throws(CryptoError) {
        try OpenSSL.check(X509_STORE_add_cert(pointer, certificate.pointer), "X509_STORE_add_cert")
    }
}
