import FoundationEssentials

/// Sends one event to one endpoint and says how it went: 2xx is delivered; any other status,
/// a timeout, a refused connection is a failure to retry, named by its answer.
public struct WebhookSender {
    private let http: any HTTPClient
    private let timeout: Duration

    public init(http: any HTTPClient, timeout: Duration) {
        self.http = http
        self.timeout = timeout
    }

    /// `nil` when delivered; otherwise the answer to keep ("500", "timeout", ...).
    /// `now` (ms, the function clock) is the signed `webhook-timestamp`.
    public func send(_ event: Event, to endpoint: WebhookEndpoint, now: Int64) throws -> String? {
        let body = try Self.body(of: event, for: endpoint)
        let headers = try WebhookSignature.headers(id: event.id, timestamp: now / 1000, body: body,
                                                   secrets: endpoint.secrets)
        let request = HTTPRequest(
            method: "POST", url: endpoint.url,
            headers: [("Content-Type", "application/json"), ("User-Agent", "Storekeeper")] + headers,
            body: body, connectTimeout: min(timeout, .seconds(5)), timeout: timeout,
            maximumResponseBytes: 1 << 20)
        do {
            let response = try http.send(request)
            return (200..<300).contains(response.status) ? nil : String(response.status)
        } catch {
            return Self.answer(error)
        }
    }

    /// What the endpoint receives: the event's JSON, or a chat message.
    public static func body(of event: Event, for endpoint: WebhookEndpoint) throws -> [UInt8] {
        switch endpoint.format {
        case .json: return try event.encoded()
        case .slack: return try JSONEncoder().encode(["text": WebhookChatLine.text(of: event)]).map { $0 }
        }
    }

    /// A transport failure named by its kind, never by its text (which may hold the URL).
    static func answer(_ error: HTTPError) -> String {
        switch error.kind {
        case .timedOut: "timeout"
        case .connectionFailed: "connection refused"
        case .tlsFailure: "tls failure"
        case .responseTooLarge: "response too large"
        case .invalidURL: "invalid url"
        case .invalidRequest, .failed: "http error"
        }
    }
}
