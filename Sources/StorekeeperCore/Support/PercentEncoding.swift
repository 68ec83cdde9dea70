/// `application/x-www-form-urlencoded` writing (the inverse of `PercentDecoding`): what goes
/// to Apple's `/auth/token` and `/auth/revoke`, and the query of the authorize URL.
/// Unreserved characters (RFC 3986 §2.3) stay as they are; every other byte is `%XX`.
public enum PercentEncoding {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    public static func encode(_ text: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.append(byte)
            default:
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `name=value&...`, in the order given.
    public static func form(_ parameters: [(String, String)]) -> String {
        parameters.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }
}
