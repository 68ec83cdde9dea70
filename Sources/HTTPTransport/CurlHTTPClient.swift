internal import CCurl
import StorekeeperCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The `HTTPClient` port on libcurl, for the App Store Server API, Apple's ID server and
/// OCSP responders.
///
/// - TLS peers are always verified (certificate chain and host name); there is no switch to
///   turn that off. `caBundlePath` replaces the system's trust store (tests pass their own
///   CA); nil uses the system's.
/// - Only http and https URLs are fetched, also when following redirects. Redirects are
///   followed only when the request asks, at most 3. libcurl does not forward a custom
///   `Authorization` header to another host.
/// - Proxies come from the standard environment variables, read by libcurl itself on each
///   transfer: `https_proxy`/`HTTPS_PROXY` for https URLs, `http_proxy` (lowercase only,
///   so a CGI request's `Proxy:` header, which becomes `HTTP_PROXY`, cannot redirect
///   traffic), `all_proxy`/`ALL_PROXY`, and `no_proxy`/`NO_PROXY` for exceptions. Nothing
///   here sets CURLOPT_PROXY or CURLOPT_NOPROXY, which would override them.
/// - One libcurl handle is reused for every request, keeping its connections and TLS
///   sessions warm. Calls on one client are serialised; make one client per concurrent
///   caller when requests must run side by side.
public final class CurlHTTPClient: HTTPClient, Sendable {
    /// Most redirects followed when a request asks for them.
    public static let maximumRedirects = 3

    private let easy: Mutex<CurlEasy>
    private let caBundlePath: String?

    /// - Parameter caBundlePath: a PEM file of trusted CA certificates used instead of the
    ///   system's; it must be readable now.
    public init(caBundlePath: String? = nil) throws(HTTPError) {
        if let caBundlePath, access(caBundlePath, R_OK) != 0 {
            throw HTTPError(.tlsFailure, "the CA bundle \(caBundlePath) is not readable")
        }
        // The first client loads libcurl (see `Curl`); a failure to load is thrown here.
        let curl = try Curl.shared()
        do {
            easy = Mutex(try CurlEasy(curl))
        } catch {
            throw error.httpError()
        }
        self.caBundlePath = caBundlePath
    }

    public func send(_ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        try request.validate()
        return try easy.withLock { (easy) throws(HTTPError) -> HTTPResponse in
            try transfer(request, on: easy)
        }
    }

    private func transfer(_ request: HTTPRequest, on easy: CurlEasy) throws(HTTPError) -> HTTPResponse {
        // The collector and the header list are borrowed by libcurl (by Unmanaged pointer and
        // by CURLOPT_HTTPHEADER); these locals keep them alive until perform returns, and the
        // next request's reset drops libcurl's references before they are reused.
        let collector = ResponseCollector(maximumBodyBytes: request.maximumResponseBytes)
        let headerList = CurlHeaderList(easy.curl)
        let outcome = request.body.withUnsafeBytes { body in
            Result { () throws(CurlError) -> Int in
                try configure(easy, for: request, body: body, headerList: headerList, collector: collector)
                try withExtendedLifetime((collector, headerList)) { () throws(CurlError) in
                    try easy.perform()
                }
                return try easy.info(CURLINFO_RESPONSE_CODE, "CURLINFO_RESPONSE_CODE")
            }
        }
        switch outcome {
        case .success(let status):
            return HTTPResponse(status: status, headers: collector.headers, body: collector.body)
        case .failure(let error):
            // Our own abort surfaces as a write error; the collector knows why.
            if collector.exceededLimit {
                throw HTTPError(.responseTooLarge,
                                "the response body exceeds \(request.maximumResponseBytes) bytes")
            }
            throw error.httpError()
        }
    }

    private func configure(_ easy: CurlEasy, for request: HTTPRequest, body: UnsafeRawBufferPointer,
                           headerList: CurlHeaderList, collector: ResponseCollector) throws(CurlError) {
        try easy.reset()
        try easy.set(CURLOPT_URL, request.url, "CURLOPT_URL")
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https", "CURLOPT_PROTOCOLS_STR")
        // libcurl must not raise SIGALRM (its DNS timeout without a threaded resolver) or
        // swap the process's SIGPIPE handler around each call; its own sends use
        // MSG_NOSIGNAL, and the function runtime ignores SIGPIPE anyway.
        try easy.set(CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL")
        // Proxies: deliberately no CURLOPT_PROXY / CURLOPT_NOPROXY, which would override
        // libcurl's reading of https_proxy, no_proxy and friends (see the type's comment).
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, request.connectTimeout.curlMilliseconds, "CURLOPT_CONNECTTIMEOUT_MS")
        try easy.set(CURLOPT_TIMEOUT_MS, request.timeout.curlMilliseconds, "CURLOPT_TIMEOUT_MS")

        // These are libcurl's defaults too; set anyway so no earlier state or build can
        // weaken them.
        try easy.set(CURLOPT_SSL_VERIFYPEER, 1, "CURLOPT_SSL_VERIFYPEER")
        try easy.set(CURLOPT_SSL_VERIFYHOST, 2, "CURLOPT_SSL_VERIFYHOST")
        if let caBundlePath {
            try easy.set(CURLOPT_CAINFO, caBundlePath, "CURLOPT_CAINFO")
            // Debian's libcurl also reads /etc/ssl/certs; a given bundle is the whole trust.
            try easy.set(CURLOPT_CAPATH, nil, "CURLOPT_CAPATH")
        }

        if request.followRedirects {
            try easy.set(CURLOPT_FOLLOWLOCATION, 1, "CURLOPT_FOLLOWLOCATION")
            try easy.set(CURLOPT_MAXREDIRS, Self.maximumRedirects, "CURLOPT_MAXREDIRS")
            try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https", "CURLOPT_REDIR_PROTOCOLS_STR")
        }

        let sendsBody = try configureMethod(easy, for: request, body: body)
        for (name, value) in request.headers {
            // "Name:" would tell libcurl to remove a header; "Name;" sends it empty.
            try headerList.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        if sendsBody {
            // Without these, libcurl adds a form Content-Type the body is not, and for large
            // bodies waits up to a second for a "100 Continue" many servers never send.
            if !request.hasHeader("content-type") { try headerList.append("Content-Type:") }
            if !request.hasHeader("expect") { try headerList.append("Expect:") }
        }
        try easy.set(CURLOPT_HTTPHEADER, borrowing: headerList, "CURLOPT_HTTPHEADER")

        let context = Unmanaged.passUnretained(collector).toOpaque()
        try easy.set(CURLOPT_HEADERFUNCTION, callback: ResponseCollector.headerCallback, "CURLOPT_HEADERFUNCTION")
        try easy.set(CURLOPT_HEADERDATA, borrowing: context, "CURLOPT_HEADERDATA")
        try easy.set(CURLOPT_WRITEFUNCTION, callback: ResponseCollector.bodyCallback, "CURLOPT_WRITEFUNCTION")
        try easy.set(CURLOPT_WRITEDATA, borrowing: context, "CURLOPT_WRITEDATA")
    }

    /// Returns whether the request carries a body (then Content-Length is sent, even 0).
    private func configureMethod(_ easy: CurlEasy, for request: HTTPRequest,
                                 body: UnsafeRawBufferPointer) throws(CurlError) -> Bool {
        switch request.method {
        case "GET":
            try easy.set(CURLOPT_HTTPGET, 1, "CURLOPT_HTTPGET")
            return false
        case "HEAD":
            try easy.set(CURLOPT_NOBODY, 1, "CURLOPT_NOBODY")
            return false
        case "POST":
            try easy.set(CURLOPT_POST, 1, "CURLOPT_POST")
        default:
            try easy.set(CURLOPT_CUSTOMREQUEST, request.method, "CURLOPT_CUSTOMREQUEST")
            // RFC 9110: Content-Length: 0 goes with methods that define a body; DELETE,
            // OPTIONS and the like send none when they have none.
            guard !body.isEmpty || request.method == "PUT" || request.method == "PATCH" else { return false }
        }
        try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, size: body.count, "CURLOPT_POSTFIELDSIZE_LARGE")
        // POSTFIELDS is borrowed, not copied: `body` stays valid until perform returns. A
        // NULL would make libcurl read the body from a callback (stdin by default), so an
        // empty body still gets a real pointer.
        let bytes = body.baseAddress ?? UnsafeRawPointer(Self.emptyBody.utf8Start)
        try easy.set(CURLOPT_POSTFIELDS, borrowing: UnsafeMutableRawPointer(mutating: bytes), "CURLOPT_POSTFIELDS")
        return true
    }

    private static let emptyBody: StaticString = ""
}

extension HTTPRequest {
    fileprivate func hasHeader(_ name: String) -> Bool {
        headers.contains { $0.0.lowercased() == name }
    }
}
