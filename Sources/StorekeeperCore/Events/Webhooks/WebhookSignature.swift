import FoundationEssentials
import OpenSSLCrypto

/// Standard Webhooks 1.0 signing (https://www.standardwebhooks.com): the receiver checks
/// `webhook-signature` against HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` under
/// its secret, and refuses a timestamp far from its own clock.
public enum WebhookSignature {
    /// The three headers for one delivery: the event id, the time in whole seconds, and one
    /// `v1,<base64>` signature per secret, separated by spaces (rotation: old and new).
    public static func headers(id: String, timestamp: Int64, body: [UInt8],
                               secrets: [WebhookSecret]) throws(CryptoError) -> [(String, String)] {
        let content = Array("\(id).\(timestamp).".utf8) + body
        var signatures: [String] = []
        for secret in secrets {
            let mac = try HMAC.sha256(key: secret.key, message: content)
            signatures.append("v1," + Data(mac).base64EncodedString())
        }
        return [
            ("webhook-id", id),
            ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", signatures.joined(separator: " ")),
        ]
    }
}
