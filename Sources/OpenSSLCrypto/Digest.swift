internal import COpenSSL

/// One-shot message digests.
public enum Digest {
    /// SHA-256 of `bytes` (32 bytes). Any input size: OpenSSL streams it internally.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        // OpenSSL's SHA-256 itself, not SHA256() (in 3.0 that is EVP_Q_digest, whose first
        // call in a process costs 5M instructions of provider set-up: see shim.h). It cannot
        // fail: the context is on the stack and the input is plain memory.
        bytes.withUnsafeBufferPointer { input in
            _ = shim_sha256(input.baseAddress, input.count, &digest)
        }
        return digest
    }
}
