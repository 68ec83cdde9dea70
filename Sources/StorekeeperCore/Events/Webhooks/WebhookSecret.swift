import FoundationEssentials

/// A webhook signing secret as Standard Webhooks writes it: `whsec_` and the key in standard
/// base64. The key itself signs; the text never reaches a log or an answer.
public struct WebhookSecret: Sendable, Equatable, CustomStringConvertible {
    public static let prefix = "whsec_"
    /// The shortest key accepted (Standard Webhooks asks for 24 to 64 bytes).
    public static let minimumKeyBytes = 16

    public let key: [UInt8]

    public init(key: [UInt8]) {
        self.key = key
    }

    /// Every secret of `text`: one, or several separated by spaces while a secret rotates
    /// (each is then signed with, so a receiver that knows any of them accepts). Nil when any
    /// is not `whsec_<base64>` of at least `minimumKeyBytes` bytes, or when there is none.
    public static func parseList(_ text: String) -> [WebhookSecret]? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
        guard !words.isEmpty else { return nil }
        var secrets: [WebhookSecret] = []
        for word in words {
            guard word.hasPrefix(prefix), let key = Base64.decode(String(word.dropFirst(prefix.count))),
                  key.count >= minimumKeyBytes else { return nil }
            secrets.append(WebhookSecret(key: key))
        }
        return secrets
    }

    /// Never the key.
    public var description: String { "whsec_…" }
}
