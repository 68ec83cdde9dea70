extension SendAttemptResult {
    /// One line an operator can act on, for each way Apple's delivery of a notification fails
    /// (nil for SUCCESS). Used by `test-notification` and `recover-notifications`.
    public static func hint(forRaw result: String) -> String? {
        switch SendAttemptResult(rawValue: result) {
        case .success: nil
        case .sslIssue, .tlsIssue: "TLS failed: the notification URL needs a valid certificate from a public CA, with its full chain, for the exact host name, over TLS 1.2 or later"
        case .timedOut: "no answer in time: check that the firewall admits Apple (17.0.0.0/8) and that the endpoint answers within seconds (acknowledge first, process later)"
        case .unsuccessfulHTTPResponseCode: "your server answered, but not with 200: check the route, the gateway log and receive-notification's log at the attempt time"
        case .noResponse: "the connection closed without an answer: check the server and any proxy or load balancer in front of it"
        case .socketIssue: "could not connect: check DNS, the port, and that the firewall admits Apple (17.0.0.0/8)"
        case .circularRedirect: "the URL redirects in a loop: give Apple the final URL (Apple does not follow redirects to it)"
        case .unsupportedCharset: "the answer's charset is not supported: answer with an empty body or UTF-8"
        case .invalidResponse: "the answer was not valid HTTP: check what sits in front of the server"
        case .prematureClose: "the connection closed before the answer was complete: check proxy and server timeouts"
        case .other: "Apple gave no detail: check the server's logs at the attempt time"
        case nil: "an attempt result this version does not know: see Apple's sendAttemptResult documentation"
        }
    }
}
