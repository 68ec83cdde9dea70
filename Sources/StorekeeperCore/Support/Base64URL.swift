/// base64url without padding (RFC 7515 §2), strict: any character outside the alphabet,
/// padding, or an impossible length is rejected rather than skipped.
///
/// Written over raw buffers because every JWS passes through it (a notification's headers
/// alone are about 15 KB of base64url), and batch verification is measured per microsecond.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        let outputCount = (input.count * 4 + 2) / 3
        let alphabet = Self.alphabet
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
            var out = 0
            var index = 0
            while index + 3 <= input.count {
                let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                buffer[out] = alphabet[Int(chunk >> 18 & 63)]
                buffer[out + 1] = alphabet[Int(chunk >> 12 & 63)]
                buffer[out + 2] = alphabet[Int(chunk >> 6 & 63)]
                buffer[out + 3] = alphabet[Int(chunk & 63)]
                out += 4
                index += 3
            }
            let rest = input.count - index
            if rest > 0 {
                let chunk = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
                buffer[out] = alphabet[Int(chunk >> 18 & 63)]
                buffer[out + 1] = alphabet[Int(chunk >> 12 & 63)]
                out += 2
                if rest == 2 {
                    buffer[out] = alphabet[Int(chunk >> 6 & 63)]
                    out += 1
                }
            }
            initialized = out
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes unpadded base64url; nil for anything that is not exactly that.
    public static func decode<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { decode(buffer: $0) }
    }

    public static func decode<Bytes: Collection>(utf8 input: Bytes) -> [UInt8]? where Bytes.Element == UInt8 {
        if let result = input.withContiguousStorageIfAvailable({ decode(buffer: $0) }) {
            return result
        }
        return Array(input).withUnsafeBufferPointer { decode(buffer: $0) }
    }

    private static func decode(buffer input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let remainder = input.count % 4
        if remainder == 1 { return nil }
        let table = decodeTable
        let outputCount = input.count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
        var valid = true
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
            var out = 0
            var index = 0
            let whole = input.count - remainder
            while index < whole {
                let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                let c = table[Int(input[index + 2])], d = table[Int(input[index + 3])]
                if (a | b | c | d) & 0xC0 != 0 { valid = false; break }
                let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                buffer[out] = UInt8(truncatingIfNeeded: chunk >> 16)
                buffer[out + 1] = UInt8(truncatingIfNeeded: chunk >> 8)
                buffer[out + 2] = UInt8(truncatingIfNeeded: chunk)
                out += 3
                index += 4
            }
            if valid, remainder > 0 {
                let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                let c = remainder == 3 ? table[Int(input[index + 2])] : 0
                if (a | b | c) & 0xC0 != 0 {
                    valid = false
                } else {
                    let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                    // Leftover bits must be zero, or two encodings would decode to the same bytes.
                    let spareBits: UInt32 = remainder == 2 ? 0xFFFF : 0xFF
                    if chunk & spareBits != 0 { valid = false }
                    buffer[out] = UInt8(truncatingIfNeeded: chunk >> 16)
                    out += 1
                    if remainder == 3 {
                        buffer[out] = UInt8(truncatingIfNeeded: chunk >> 8)
                        out += 1
                    }
                }
            }
            initialized = out
        }
        return valid ? output : nil
    }
}
