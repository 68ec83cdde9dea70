import OpenSSLCrypto

/// The dashboard's sign-in cookie: `<token name>.<expiry, s>.<HMAC-SHA256 hex>`. It never
/// carries the token; its key is derived from the configured tokens, so changing or revoking
/// any token ends every session. Checked in a fixed order: shape, signature, expiry, then the
/// caller re-checks that the name still exists with the scope it needs.
public struct DashboardCookie: Sendable {
    public static let name = "storekeeper_dashboard"
    /// A working day.
    public static let lifetimeSeconds: Int64 = 8 * 3600

    private let key: [UInt8]

    /// `material` is the tokens' secret material (`SignInTokens.keyMaterial`).
    public init(material: [UInt8]) throws(CryptoError) {
        key = try HMAC.sha256(key: material, message: Array("storekeeper dashboard cookie v1".utf8))
    }

    /// The cookie's value for `tokenName`, valid until `now` + a working day.
    public func value(tokenName: String, nowSeconds: Int64) throws(CryptoError) -> String {
        let payload = "\(tokenName).\(nowSeconds + Self.lifetimeSeconds)"
        return payload + "." + Hex.encode(try HMAC.sha256(key: key, message: Array(payload.utf8)))
    }

    /// The token name a well-signed, unexpired `value` carries, or nil.
    public func tokenName(in value: String, nowSeconds: Int64) -> String? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, let mac = parts.last, mac.count == 64 else { return nil }
        let payload = parts.dropLast().joined(separator: ".")
        guard let expected = try? HMAC.sha256(key: key, message: Array(payload.utf8)),
              ConstantTime.equals(Array(Hex.encode(expected).utf8), Array(mac.utf8)) else { return nil }
        guard let expiry = Int64(parts[parts.count - 2]), nowSeconds < expiry,
              expiry <= nowSeconds + Self.lifetimeSeconds else { return nil }
        return parts.dropLast(2).joined(separator: ".")
    }

    /// The value of cookie `name` in a `Cookie:` header, or nil.
    public static func find(in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let trimmed = pair.drop(while: { $0 == " " })
            if trimmed.hasPrefix(name + "=") { return String(trimmed.dropFirst(name.count + 1)) }
        }
        return nil
    }
}
