import FoundationEssentials

/// What happened when the App Store sent a notification to the server.
///
/// [sendAttemptResult](https://developer.apple.com/documentation/appstoreserverapi/sendattemptresult)
public enum SendAttemptResult: String, Codable, Sendable, Hashable, CaseIterable {
    case success = "SUCCESS"
    case timedOut = "TIMED_OUT"
    /// The name in the WWDC 2022 session and early answers.
    case sslIssue = "SSL_ISSUE"
    /// The name in Apple's current documentation and server libraries.
    case tlsIssue = "TLS_ISSUE"
    case circularRedirect = "CIRCULAR_REDIRECT"
    case noResponse = "NO_RESPONSE"
    case socketIssue = "SOCKET_ISSUE"
    case unsupportedCharset = "UNSUPPORTED_CHARSET"
    case invalidResponse = "INVALID_RESPONSE"
    case prematureClose = "PREMATURE_CLOSE"
    case unsuccessfulHTTPResponseCode = "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
    case other = "OTHER"
}
