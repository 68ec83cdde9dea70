import StorekeeperCore

/// `application/x-www-form-urlencoded`, the format of query strings and of Apple's
/// `form_post` callback: `a=1&b=x+y%21`. Percent escapes are decoded and `+` is a space.
///
/// Strict where leniency would hide an attack or a bug: a malformed escape, bytes that are
/// not UTF-8, or a parameter given twice (which copy would a proxy or a log have seen?) is
/// `invalid_request`.
enum FormURLEncoding {
    static func parameters(_ text: String) throws -> [String: String] {
        try parameters(Array(text.utf8))
    }

    static func parameters(_ bytes: [UInt8]) throws -> [String: String] {
        var result: [String: String] = [:]
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decodeComponent(parts[0])
            let value = parts.count > 1 ? try decodeComponent(parts[1]) : ""
            if name.isEmpty { continue }
            if result[name] != nil {
                throw FunctionError.badInput(message: "parameter `\(name)` is given more than once")
            }
            result[name] = value
        }
        return result
    }

    static func decodeComponent(_ bytes: ArraySlice<UInt8>) throws -> String {
        guard let text = PercentDecoding.decode(bytes, plusIsSpace: true) else {
            throw FunctionError.badInput(message: "malformed percent-encoding or non-UTF-8 bytes in the parameters")
        }
        return text
    }
}
