import FoundationEssentials

/// The answer to an `HTTPEvent`: `{statusCode, headers, cookies?, body, isBase64Encoded}`.
struct HTTPEventResponse: Encodable {
    let statusCode: Int
    let headers: [String: String]
    /// Format 2.0 carries `Set-Cookie` here, because a header map cannot hold two of them.
    let cookies: [String]?
    let body: String
    let isBase64Encoded: Bool

    init(_ response: FunctionResponse) {
        statusCode = response.status
        var headers: [String: String] = [:]
        var cookies: [String] = []
        for (name, value) in response.headers {
            let lowered = name.lowercased()
            if lowered == "set-cookie" {
                cookies.append(value)
            } else if let existing = headers[lowered] {
                headers[lowered] = existing + ", " + value
            } else {
                headers[lowered] = value
            }
        }
        if headers["content-type"] == nil { headers["content-type"] = "application/json" }
        self.headers = headers
        self.cookies = cookies.isEmpty ? nil : cookies
        if let text = String(validating: response.body, as: UTF8.self) {
            body = text
            isBase64Encoded = false
        } else {
            body = Data(response.body).base64EncodedString()
            isBase64Encoded = true
        }
    }

    func encoded() throws -> [UInt8] {
        try RuntimeJSON.encode(self) + [UInt8(ascii: "\n")]
    }
}
