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
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "+"):
                output.append(UInt8(ascii: " "))
                index += 1
            case UInt8(ascii: "%"):
                guard bytes.endIndex - index >= 3,
                      let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else {
                    throw FunctionError.badInput(message: "malformed percent-encoding in the parameters")
                }
                output.append(high << 4 | low)
                index += 3
            default:
                output.append(byte)
                index += 1
            }
        }
        guard let text = String(validating: output, as: UTF8.self) else {
            throw FunctionError.badInput(message: "the parameters are not UTF-8")
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
