/// One App Store Server API call as it goes on the wire: the operation's name (as Apple's
/// server libraries name their methods), method, path, query and JSON body.
public struct AppStoreAPIOperation: Sendable {
    public let name: String
    public let method: String
    /// Already percent-encoded.
    public let path: String
    public let query: [(String, String)]
    public let body: [UInt8]?
    /// The body's media type: JSON unless the endpoint takes something else (an image
    /// upload is `image/png`).
    public let contentType: String
    /// Whether a production "not found" may be asked again in the sandbox.
    public let isLookupByTransactionId: Bool

    public init(name: String, method: String, path: String, query: [(String, String)] = [],
                body: [UInt8]? = nil, contentType: String = "application/json", isLookupByTransactionId: Bool = false) {
        self.name = name
        self.contentType = contentType
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.isLookupByTransactionId = isLookupByTransactionId
    }

    var pathAndQuery: String {
        guard !query.isEmpty else { return path }
        return path + "?" + PercentEncoding.form(query)
    }
}
