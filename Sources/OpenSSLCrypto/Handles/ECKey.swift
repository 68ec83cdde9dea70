internal import COpenSSL

/// Owns one EC_KEY: a P-256 public key imported from its point through OpenSSL's low-level
/// EC API, which fetches no provider (see shim.h, "Low-level SHA-256 and P-256 ECDSA").
/// Only read after init, so it can be shared.
final class ECKey {
    let pointer: OpaquePointer

    /// `point` is 0x04 || x || y; a point not on P-256 is refused.
    init(p256Point point: [UInt8]) throws(CryptoError) {
        let key = point.withUnsafeBufferPointer { shim_p256_public_key($0.baseAddress, $0.count) }
        pointer = try OpenSSL.check(key, "EC_KEY_oct2key(P-256)")
    }

    deinit { shim_EC_KEY_free(pointer) }

    /// Whether `derSignature` is an ECDSA signature of `digest` (SHA-256) by this key.
    /// Invalid and malformed are both `false`.
    func verify(digest: [UInt8], derSignature: [UInt8]) -> Bool {
        let result = digest.withUnsafeBufferPointer { digest in
            derSignature.withUnsafeBufferPointer { signature in
                shim_ECDSA_verify(digest.baseAddress, Int32(digest.count), signature.baseAddress, Int32(signature.count), pointer)
            }
        }
        if result != 1 { OpenSSL.discardErrors() }
        return result == 1
    }
}
