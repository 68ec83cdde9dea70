internal import COpenSSL

/// Owns one STACK_OF(X509). A borrowing stack only holds pointers to certificates someone
/// else owns (sk_X509_push does not up-ref); an owning stack holds one reference on each
/// (as X509_STORE_CTX_get1_chain returns it) and drops them when freed.
final class X509Stack {
    let pointer: OpaquePointer
    private let ownsElements: Bool

    /// An empty borrowing stack; the caller keeps the pushed certificates alive.
    init() throws(CryptoError) {
        pointer = try OpenSSL.check(shim_sk_X509_new_null(), "sk_X509_new_null")
        ownsElements = false
    }

    /// Takes a stack whose elements carry a reference each.
    init(owningElementsOf pointer: OpaquePointer) {
        self.pointer = pointer
        ownsElements = true
    }

    deinit {
        if ownsElements {
            shim_sk_X509_pop_free(pointer)
        } else {
            shim_sk_X509_free(pointer)
        }
    }

    /// Borrowed: the stack does not take a reference.
    func pushBorrowed(_ certificate: OpaquePointer) throws(CryptoError) {
        try OpenSSL.check(shim_sk_X509_push(pointer, certificate), "sk_X509_push")
    }

    /// The element pointers, valid while this stack lives.
    var elements: [OpaquePointer] {
        let count = Int(shim_sk_X509_num(pointer))
        return (0..<max(count, 0)).compactMap { shim_sk_X509_value(pointer, Int32($0)) }
    }
}
