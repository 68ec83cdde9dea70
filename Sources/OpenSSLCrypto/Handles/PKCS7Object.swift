internal import COpenSSL

/// Owns one PKCS7 structure (d2i_PKCS7's result).
final class PKCS7Object {
    let pointer: UnsafeMutablePointer<PKCS7>

    init(owning pointer: UnsafeMutablePointer<PKCS7>) {
        self.pointer = pointer
    }

    deinit { PKCS7_free(pointer) }
}
