import FoundationEssentials

/// An HTTP request in the serverless "payload format 2.0" envelope: `version`, `rawPath`,
/// `rawQueryString`, `cookies`, `headers`, `requestContext.http.method`, `body`,
/// `isBase64Encoded`. Other envelope fields are ignored.
struct HTTPEvent: Decodable {
    struct RequestContext: Decodable {
        struct HTTP: Decodable {
            let method: String
            let path: String?
        }

        let http: HTTP
    }

    let version: String
    let rawPath: String?
    let rawQueryString: String?
    let cookies: [String]?
    let headers: [String: String]?
    let requestContext: RequestContext
    let body: String?
    let isBase64Encoded: Bool?

    /// The request the handler sees; `invalid_request` for an undecodable body or query,
    /// `payload_too_large` past the body limit.
    func request() throws -> FunctionRequest {
        var body: [UInt8] = []
        if let text = self.body {
            if isBase64Encoded == true {
                guard let data = Data(base64Encoded: text) else {
                    throw FunctionError.badInput(message: "the event body is not valid base64")
                }
                body = Array(data)
            } else {
                body = Array(text.utf8)
            }
        }
        if body.count > RuntimeLimits.maxBodyBytes {
            throw FunctionError.payloadTooLarge(message: "the body is larger than \(RuntimeLimits.maxBodyBytes) bytes")
        }
        var headers: [String: String] = [:]
        for (name, value) in self.headers ?? [:] { headers[name.lowercased()] = value }
        if let cookies, !cookies.isEmpty {
            // Format 2.0 moves Cookie headers into `cookies`; put them back where HTTP has them.
            headers["cookie"] = cookies.joined(separator: "; ")
        }
        return FunctionRequest(
            frontDoor: .httpEvent,
            method: requestContext.http.method,
            path: rawPath ?? requestContext.http.path ?? "/",
            query: try FormURLEncoding.parameters(rawQueryString ?? ""),
            headers: headers,
            body: body
        )
    }
}
