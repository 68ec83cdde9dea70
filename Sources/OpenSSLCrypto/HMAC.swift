internal import COpenSSL

/// One-shot message authentication codes (RFC 2104), for signing webhooks.
public enum HMAC {
    /// HMAC-SHA256 of `message` under `key` (32 bytes). Any key length: OpenSSL hashes a key
    /// longer than the block, as RFC 2104 says.
    public static func sha256(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count <= Int(Int32.max) else {
            throw CryptoError(operation: "HMAC", message: "the key is longer than OpenSSL takes")
        }
        var mac = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // An empty array may have no storage: OpenSSL is given a valid pointer either way.
        let done = key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { input in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { empty in
                    COpenSSL.HMAC(EVP_sha256(), keyBytes.baseAddress ?? UnsafePointer(empty.baseAddress), Int32(key.count),
                         input.baseAddress ?? UnsafePointer(empty.baseAddress), input.count, &mac, &length) != nil
                }
            }
        }
        guard done, length == 32 else { throw CryptoError.fromErrorQueue(operation: "HMAC") }
        return Array(mac.prefix(Int(length)))
    }
}
