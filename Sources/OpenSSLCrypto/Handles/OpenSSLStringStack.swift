internal import COpenSSL

/// Owns one STACK_OF(OPENSSL_STRING) as returned by X509_get1_ocsp (freed, strings and
/// all, with X509_email_free).
final class OpenSSLStringStack {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { X509_email_free(pointer) }

    var strings: [String] {
        let count = Int(shim_sk_OPENSSL_STRING_num(pointer))
        return (0..<max(count, 0)).compactMap { index in
            shim_sk_OPENSSL_STRING_value(pointer, Int32(index)).map { String(cString: $0) }
        }
    }
}
