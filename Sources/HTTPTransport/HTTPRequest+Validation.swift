import StorekeeperCore

extension HTTPRequest {
    /// Refuses what libcurl would send as given but should not: a method or header that
    /// could smuggle a line break into the request (libcurl writes custom methods and
    /// headers verbatim), a NUL that would cut a C string short, a URL without a scheme
    /// (libcurl would guess http), a body on GET or HEAD.
    func validate() throws(HTTPError) {
        let urlBytes = url.utf8
        guard !urlBytes.isEmpty, !urlBytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw HTTPError(.invalidURL, "the URL is empty or contains a space or control character")
        }
        guard url.contains("://") else {
            throw HTTPError(.invalidURL, "the URL has no scheme")
        }
        guard Self.isToken(method) else {
            throw HTTPError(.invalidRequest, "the method is not an HTTP token")
        }
        if (method == "GET" || method == "HEAD") && !body.isEmpty {
            throw HTTPError(.invalidRequest, "a \(method) request carries no body")
        }
        for (name, value) in headers {
            guard Self.isToken(name) else {
                throw HTTPError(.invalidRequest, "a header name is not an HTTP token")
            }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw HTTPError(.invalidRequest, "the value of header \(name) contains a line break or NUL")
            }
        }
    }

    /// RFC 9110 token: one or more tchar.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "A")...UInt8(ascii: "Z"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}
