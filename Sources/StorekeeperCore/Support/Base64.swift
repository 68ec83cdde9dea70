import FoundationEssentials

/// Standard base64 (RFC 4648 §4, `+` and `/`), the one decoder for it; base64url is `Base64URL`.
///
/// Strict in what Foundation's decoder is strict about: no whitespace or line breaks (a
/// caller that tolerates them strips them first, saying why), no character outside the
/// alphabet, padding only at the end. Empty text decodes to no bytes.
public enum Base64 {
    /// Whether the trailing `=` padding must be there.
    public enum Padding: Sendable {
        /// Padded to a multiple of four, as RFC 7515 §4.1.6 requires of `x5c` and as
        /// configuration values are written.
        case required
        /// Padding may be left off, as apps often send a receipt; a length that no
        /// encoding has (one character past a multiple of four) is still refused.
        case optional
    }

    /// The bytes `text` encodes, or nil when it is not standard base64 under `padding`.
    public static func decode(_ text: String, padding: Padding = .required) -> [UInt8]? {
        var padded = text
        if padding == .optional {
            let remainder = padded.utf8.count % 4
            if remainder == 1 { return nil }
            if remainder > 0 { padded += String(repeating: "=", count: 4 - remainder) }
        }
        return Data(base64Encoded: padded).map { [UInt8]($0) }
    }
}
