import FoundationEssentials

/// How Storekeeper talks to Apple (App Store Server API, Apple ID server, OCSP responders).
/// The libcurl adapter implements it; tests may also pass a real client pointed at a fake
/// server on loopback. TLS verification is always on.
public protocol HTTPClient: AnyObject {
    func send(_ request: HTTPRequest) throws(HTTPError) -> HTTPResponse
}

/// One HTTP request.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    /// In order; names as given.
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Time allowed to establish the connection (TCP and TLS).
    public var connectTimeout: Duration
    /// Time allowed for the whole exchange.
    public var timeout: Duration
    /// Redirects are not followed unless asked: Apple's APIs never redirect, and following
    /// one would send the Authorization header somewhere unexpected.
    public var followRedirects: Bool
    /// A response body larger than this is refused (HTTPError.responseTooLarge).
    public var maximumResponseBytes: Int

    public init(method: String, url: String, headers: [(String, String)] = [], body: [UInt8] = [],
                connectTimeout: Duration = .seconds(5), timeout: Duration = .seconds(30),
                followRedirects: Bool = false, maximumResponseBytes: Int = 16 << 20) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.followRedirects = followRedirects
        self.maximumResponseBytes = maximumResponseBytes
    }
}

/// One HTTP response.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Names lowercased, in the order received.
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header with this name (case-insensitive).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.0 == wanted }?.1
    }
}

/// Why no HTTP response came back. Transport failures are retryable; a refused or
/// oversized answer is not.
public typealias HTTPError = DomainError<HTTPErrorKind>

public enum HTTPErrorKind: String, ErrorKind {
    /// A URL libcurl cannot use: our configuration (a base URL variable).
    case invalidURL = "http_invalid_url"
    /// The request cannot be sent as given (a method or header name that is not an HTTP
    /// token, a line break in a header value, a body on GET or HEAD): a bug, not weather.
    case invalidRequest = "http_invalid_request"
    /// DNS failure, connection refused or reset.
    case connectionFailed = "http_connection_failed"
    case timedOut = "http_timeout"
    /// Certificate not trusted, hostname mismatch, handshake failure.
    case tlsFailure = "http_tls_failure"
    case responseTooLarge = "http_response_too_large"
    case failed = "http_error"

    public var disposition: ErrorDisposition {
        switch self {
        case .connectionFailed, .timedOut, .failed: .retryLater
        case .invalidURL: .configuration
        case .invalidRequest: .internalFailure
        case .tlsFailure, .responseTooLarge: .upstreamFailed
        }
    }
}
