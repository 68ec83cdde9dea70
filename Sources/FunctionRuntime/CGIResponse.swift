/// Writes a `FunctionResponse` as a CGI response: a `Status:` line, headers, a blank line,
/// the body (RFC 3875 §6).
enum CGIResponse {
    static func encode(_ response: FunctionResponse) -> [UInt8] {
        var head = "Status: \(response.status) \(HTTPStatus.reasonPhrase(response.status))\r\n"
        if response.header("content-type") == nil {
            head += "Content-Type: application/json\r\n"
        }
        for (name, value) in response.headers where name.lowercased() != "content-length" && name.lowercased() != "status" {
            // A CR or LF in a header would let a value start a header of its own.
            head += "\(headerSafe(name)): \(headerSafe(value))\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\n\r\n"
        return Array(head.utf8) + response.body
    }

    private static func headerSafe(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
    }
}
