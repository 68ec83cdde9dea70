internal import COpenSSL

/// Owns one OPENSSL_malloc'd buffer handed to us by OpenSSL (PEM_read_bio outputs,
/// BN_bn2hex strings), released with OPENSSL_free.
final class OpenSSLBuffer {
    let pointer: UnsafeMutableRawPointer

    init(owning pointer: UnsafeMutableRawPointer) {
        self.pointer = pointer
    }

    /// Takes ownership of a possibly NULL output parameter.
    static func owning<T>(_ pointer: UnsafeMutablePointer<T>?) -> OpenSSLBuffer? {
        pointer.map { OpenSSLBuffer(owning: UnsafeMutableRawPointer($0)) }
    }

    deinit { shim_OPENSSL_free(pointer) }

    func bytes(count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The buffer read as a NUL-terminated C string.
    var string: String {
        String(cString: pointer.assumingMemoryBound(to: CChar.self))
    }
}
