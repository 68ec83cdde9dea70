/// Keeps secrets out of logs: anything that looks like a compact JWS/JWT/JWE, the credential
/// after `Bearer` or `Basic`, and PEM blocks are replaced, and fields whose names say they
/// hold a secret are blanked whatever their value.
///
/// Deliberately over-eager: a false positive costs a less useful log line, a false negative
/// leaks a credential.
public enum LogRedaction {
    public static let redactedJWS = "[redacted-jws]"
    public static let redacted = "[redacted]"

    /// Field-name fragments that mark a secret (compared lowercased).
    static let sensitiveKeyFragments = [
        "token", "secret", "password", "authorization", "cookie", "privatekey", "private_key", "jws", "signedpayload",
    ]

    private static let sensitiveKeyFragmentBytes = sensitiveKeyFragments.map { Array($0.utf8) }
    private static let pemMarker = Array("-----BEGIN".utf8)

    /// True when a field with this name must never be logged as is. Runs for every field of
    /// every log line, so it compares ASCII bytes instead of searching Strings.
    public static func isSensitiveKey(_ key: String) -> Bool {
        let lowered = key.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
        return sensitiveKeyFragmentBytes.contains { fragment in contains(lowered, fragment) }
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    /// `value` as safe to log under `key`.
    public static func redact(_ value: LogValue, key: String) -> LogValue {
        if isSensitiveKey(key) { return .string(redacted) }
        if case .string(let text) = value { return .string(redact(text)) }
        return value
    }

    /// `text` with every JWS-looking token, bearer/basic credential and PEM block replaced.
    public static func redact(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(where: isTokenByte) else { return text }
        // Bytes, not String.contains: that generic search builds its tables at run time, and
        // cost the first log line of every process 340k instructions.
        if contains(bytes, pemMarker) { return "[redacted-pem]" }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard isTokenByte(bytes[index]) else {
                output.append(bytes[index])
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, isTokenByte(bytes[end]) { end += 1 }
            let run = bytes[index..<end]
            if isAuthScheme(run), let credential = credentialRange(in: bytes, after: end) {
                output.append(contentsOf: run)
                output.append(contentsOf: bytes[end..<credential.lowerBound])
                output.append(contentsOf: redacted.utf8)
                index = credential.upperBound
            } else if looksLikeJOSE(run) {
                output.append(contentsOf: redactedJWS.utf8)
                index = end
            } else {
                output.append(contentsOf: run)
                index = end
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A compact JOSE serialisation: three parts (JWS/JWT) or five (JWE) of base64url. The
    /// header always starts `{"`, which is `eyJ` in base64url; without that, three long parts
    /// are still suspicious enough.
    static func looksLikeJOSE(_ run: ArraySlice<UInt8>) -> Bool {
        let parts = run.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 5 else { return false }
        if parts[0].starts(with: "eyJ".utf8), parts[0].count >= 10 { return true }
        return parts.count == 3 && parts.allSatisfy { $0.count >= 16 }
    }

    private static func isAuthScheme(_ run: ArraySlice<UInt8>) -> Bool {
        let word = String(decoding: run, as: UTF8.self).lowercased()
        return word == "bearer" || word == "basic"
    }

    /// The credential after an auth scheme: spaces, then everything up to a delimiter.
    private static func credentialRange(in bytes: [UInt8], after schemeEnd: Int) -> Range<Int>? {
        var start = schemeEnd
        while start < bytes.count, bytes[start] == UInt8(ascii: " ") { start += 1 }
        guard start > schemeEnd else { return nil }
        var end = start
        while end < bytes.count, !isCredentialDelimiter(bytes[end]) { end += 1 }
        return end > start ? start..<end : nil
    }

    private static func isCredentialDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
             UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ","), UInt8(ascii: ";"):
            true
        default:
            false
        }
    }

    /// base64url's alphabet plus `.`, the characters a compact JOSE token is made of.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }
}
