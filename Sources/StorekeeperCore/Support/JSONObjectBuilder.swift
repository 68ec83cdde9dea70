import FoundationEssentials

/// Writes one JSON object field by field, and can splice in JSON bytes that are already
/// valid (a verified payload) without decoding and re-encoding them: the output keeps every
/// field exactly as Apple signed it, and the hot path of batch verification stays cheap.
public struct JSONObjectBuilder {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var isEmpty = true

    public init() {}

    public mutating func add(_ key: String, _ value: String) {
        appendKey(key)
        Self.appendString(value, to: &bytes)
    }

    public mutating func add(_ key: String, _ value: Bool) {
        appendKey(key)
        bytes.append(contentsOf: Array((value ? "true" : "false").utf8))
    }

    /// Splices `json`, which the caller guarantees is one valid JSON value (it was parsed).
    public mutating func add(_ key: String, rawJSON json: [UInt8]) {
        appendKey(key)
        bytes.append(contentsOf: json)
    }

    public mutating func add(_ key: String, encoding value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        appendKey(key)
        bytes.append(contentsOf: try encoder.encode(value))
    }

    /// The finished object.
    public func build() -> [UInt8] {
        bytes + [UInt8(ascii: "}")]
    }

    private mutating func appendKey(_ key: String) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        Self.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `string` as a JSON string literal: quotes, backslashes and control characters
    /// (and DEL, which terminals misread) escaped; everything else as UTF-8. Runs of bytes that
    /// need no escape are copied whole: every verified payload is re-encoded through here, and a
    /// notification's nested JWS are 5 KB strings with nothing to escape.
    public static func appendString(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { utf8 in
            bytes.reserveCapacity(bytes.count + utf8.count + 2)
            bytes.append(UInt8(ascii: "\""))
            var runStart = 0
            for index in utf8.indices where needsEscape(utf8[index]) {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscape(of: utf8[index], to: &bytes)
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
            bytes.append(UInt8(ascii: "\""))
        }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func appendEscape(of byte: UInt8, to bytes: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        default:
            bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            bytes.append(hexDigits[Int(byte >> 4)])
            bytes.append(hexDigits[Int(byte & 0xF)])
        }
    }
}
