import StorekeeperCore

/// The bearer-token check for internal functions served over HTTP.
enum AdminAuthorization {
    /// True when `header` is `Bearer <token>` (scheme case-insensitive, RFC 6750) with
    /// exactly `token`, compared in constant time.
    static func accepts(header: String?, token: String) -> Bool {
        guard let header, !token.isEmpty else { return false }
        let bytes = Array(header.utf8)
        let scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count,
              zip(bytes, scheme).allSatisfy({ asciiLowercased($0) == $1 }) else { return false }
        var start = scheme.count
        while start < bytes.count, bytes[start] == UInt8(ascii: " ") { start += 1 }
        return ConstantTime.equals(Array(bytes[start...]), Array(token.utf8))
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
