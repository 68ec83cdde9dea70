import OpenSSLCrypto

/// The key layout of the store, in one place, so nobody invents a key somewhere else.
///
/// Rules:
/// - Every key starts with its area (`appstore:`, `siwa:`, `user:`, ...), then what it is.
/// - Keys that one atomic step touches together share a Redis Cluster hash tag (the part in
///   braces), so the same layout runs on a cluster; keys that are never touched together do
///   not, so they spread over the cluster.
/// - Whatever is only a cache has an expiry; whatever is a record of what Apple sent does not.
///
/// | key | value | expiry | written by |
/// | --- | --- | --- | --- |
/// | `appstore:chain:<sha256 of x5c[0].x5c[1]>` | a proven `x5c` chain: leaf key, validity window (`CachedChain`) | 24 h | signed-data verification |
/// | `appstore:ocsp:<sha256 of certificate DER>` | the last OCSP answer for a certificate (`CachedRevocationStatus`) | until nextUpdate, at most 24 h (+ a soft-fail grace) | online checks |
public enum StoreKeys {
    /// A verified `x5c` chain, keyed by the exact certificate text, so a cache hit costs no
    /// certificate parsing at all.
    public static func verifiedChain(leaf: String, intermediate: String) -> String {
        "appstore:chain:" + hex(Digest.sha256(Array(leaf.utf8) + [UInt8(ascii: ".")] + Array(intermediate.utf8)))
    }

    /// The revocation status of one certificate, keyed by its DER fingerprint.
    public static func revocationStatus(certificateFingerprint: [UInt8]) -> String {
        "appstore:ocsp:" + hex(certificateFingerprint)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
