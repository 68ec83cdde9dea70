internal import COpenSSL

/// One-shot message digests.
public enum Digest {
    /// SHA-256 of `bytes` (32 bytes). Any input size: OpenSSL streams it internally.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        // The low-level one-shot (not deprecated in 3.0) needs no algorithm fetch, which
        // matters for small inputs. With a caller buffer it cannot fail: it returns `digest`.
        bytes.withUnsafeBufferPointer { input in
            _ = SHA256(input.baseAddress, input.count, &digest)
        }
        return digest
    }
}
