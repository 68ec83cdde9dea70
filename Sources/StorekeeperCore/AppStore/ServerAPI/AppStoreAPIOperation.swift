/// One App Store Server API call as it goes on the wire: the operation's name (as Apple's
/// server libraries name their methods), method, path, query and JSON body.
public struct AppStoreAPIOperation: Sendable {
    public let name: String
    public let method: String
    /// Already percent-encoded.
    public let path: String
    public let query: [(String, String)]
    public let body: [UInt8]?
    /// Whether a production "not found" may be asked again in the sandbox.
    public let isLookupByTransactionId: Bool

    public init(name: String, method: String, path: String, query: [(String, String)] = [],
                body: [UInt8]? = nil, isLookupByTransactionId: Bool = false) {
        self.name = name
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.isLookupByTransactionId = isLookupByTransactionId
    }

    /// `text` percent-encoded as one path segment or query component (RFC 3986 unreserved
    /// characters stay as they are).
    public static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    var pathAndQuery: String {
        guard !query.isEmpty else { return path }
        return path + "?" + query.map { Self.escape($0.0) + "=" + Self.escape($0.1) }.joined(separator: "&")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
