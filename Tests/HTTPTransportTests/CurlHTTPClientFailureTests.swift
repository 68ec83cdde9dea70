import Foundation
import HTTPTransport
import StorekeeperCore
import Testing

/// Requests that get no usable answer, and the HTTPError kind each becomes.
@Suite(.timeLimit(.minutes(1)))
struct CurlHTTPClientFailureTests {
    let server: TestHTTPServer
    let client: CurlHTTPClient

    init() throws {
        server = try TestHTTPServer.plain.get()
        client = try CurlHTTPClient()
    }

    private func failure(_ request: HTTPRequest, using client: CurlHTTPClient? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) -> HTTPError? {
        #expect(throws: HTTPError.self, sourceLocation: sourceLocation) {
            try (client ?? self.client).send(request)
        }
    }

    @Test func slowResponseHitsTheTotalTimeout() {
        let clock = ContinuousClock()
        let start = clock.now
        let error = failure(HTTPRequest(method: "GET", url: server.url("/slow/30000"), timeout: .milliseconds(400)))
        let elapsed = clock.now - start
        #expect(error?.kind == .timedOut, "\(String(describing: error))")
        #expect(error?.isRetryable == true)
        // Did not wait for the answer (30 s away); the bound is far above the 400 ms timeout
        // so that a loaded machine meets it (it says "timed out", not "fast").
        #expect(elapsed < .seconds(20))
    }

    @Test func silentServerHitsTheTotalTimeout() {
        let clock = ContinuousClock()
        let start = clock.now
        let error = failure(HTTPRequest(method: "GET", url: server.url("/hang"), timeout: .milliseconds(400)))
        #expect(error?.kind == .timedOut, "\(String(describing: error))")
        #expect(clock.now - start < .seconds(10))
    }

    @Test func stalledHandshakeHitsTheConnectTimeout() throws {
        let listener = try SilentListener()
        let clock = ContinuousClock()
        let start = clock.now
        // The total timeout is long; only the connect timeout can end this early.
        let error = failure(HTTPRequest(method: "GET", url: "https://127.0.0.1:\(listener.port)/",
                                        connectTimeout: .milliseconds(300), timeout: .seconds(30)))
        #expect(error?.kind == .timedOut, "\(String(describing: error))")
        #expect(clock.now - start < .seconds(10))
        withExtendedLifetime(listener) {}
    }

    @Test func closedPortIsConnectionFailed() throws {
        let stopped = try TestHTTPServer()
        stopped.stop()
        let error = failure(HTTPRequest(method: "GET", url: stopped.url("/status/200")))
        #expect(error?.kind == .connectionFailed, "\(String(describing: error))")
        #expect(error?.isRetryable == true)
    }

    @Test(arguments: ["/drop", "/drop?reset=1", "/bytes/100000?truncate=1"])
    func droppedConnectionIsConnectionFailed(path: String) {
        let error = failure(HTTPRequest(method: "GET", url: server.url(path)))
        #expect(error?.kind == .connectionFailed, "\(String(describing: error))")
    }

    @Test(arguments: ["/drop", "/drop?reset=1"])
    func serverGoneWhileSendingIsConnectionFailed(path: String) throws {
        // The server closes without reading a large body: the upload hits a closed socket.
        // Run on its own (SIGPIPE left at its default), this also shows libcurl never raises it.
        let body = [UInt8](repeating: 0x61, count: 8 << 20)
        let error = failure(HTTPRequest(method: "PUT", url: server.url(path), body: body))
        #expect(error?.kind == .connectionFailed, "\(String(describing: error))")
        let tls = try TestHTTPServer.tls.get()
        let client = try CurlHTTPClient(caBundlePath: tls.caBundlePath)
        let tlsError = failure(HTTPRequest(method: "PUT", url: tls.url(path), body: body), using: client)
        #expect(tlsError?.kind == .connectionFailed, "\(String(describing: tlsError))")
    }

    @Test(arguments: ["/bytes/1001", "/bytes/1001?chunked=1", "/bytes/50000000?chunked=1"])
    func bodyOverTheCapIsTooLarge(path: String) {
        let error = failure(HTTPRequest(method: "GET", url: server.url(path), maximumResponseBytes: 1000))
        #expect(error?.kind == .responseTooLarge, "\(String(describing: error))")
        #expect(error?.isRetryable == false)
    }

    @Test(arguments: ["file:///etc/hostname", "ftp://127.0.0.1/", "gopher://127.0.0.1/",
                      "http://[::1", "http://", "not a url", "http://exa mple.com/", "example.com/path", ""])
    func badURLIsInvalidURL(url: String) {
        let error = failure(HTTPRequest(method: "GET", url: url))
        #expect(error?.kind == .invalidURL, "\(String(describing: error))")
        #expect(error?.isRetryable == false)
    }

    @Test func urlWithNULIsInvalidURL() {
        // A C string would end at the NUL and fetch a different URL.
        let error = failure(HTTPRequest(method: "GET", url: server.url("/echo\u{0}/../status/200")))
        #expect(error?.kind == .invalidURL, "\(String(describing: error))")
    }

    @Test func requestThatCannotBeSentAsGivenIsInvalidRequest() {
        let url = server.url("/echo")
        let requests = [
            HTTPRequest(method: "GET", url: url, headers: [("X-Injected", "a\r\nX-Evil: 1")]),
            HTTPRequest(method: "GET", url: url, headers: [("X-Injected", "a\nb")]),
            HTTPRequest(method: "GET", url: url, headers: [("Bad Name", "a")]),
            HTTPRequest(method: "GET", url: url, headers: [("", "a")]),
            HTTPRequest(method: "GET /other HTTP/1.1\r\nX:", url: url),
            HTTPRequest(method: "", url: url),
            HTTPRequest(method: "GET", url: url, body: [1]),
            HTTPRequest(method: "HEAD", url: url, body: [1]),
        ]
        for request in requests {
            let error = failure(request)
            #expect(error?.kind == .invalidRequest, "\(request.method) \(request.headers): \(String(describing: error))")
            #expect(error?.isRetryable == false)
        }
    }
}
