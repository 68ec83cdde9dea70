internal import COpenSSL

/// Bytes from OpenSSL's CSPRNG (seeded from the operating system): nonces and keys.
public enum SecureRandom {
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        try OpenSSL.initialise()
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        try OpenSSL.check(RAND_bytes(&bytes, Int32(count)), "RAND_bytes")
        return bytes
    }
}
