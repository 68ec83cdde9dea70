import Foundation
import HTTPTransport
import StorekeeperCore
import Testing

/// Requests that get an answer: statuses, headers and bodies both ways, methods, reuse.
@Suite(.timeLimit(.minutes(1)))
struct CurlHTTPClientTests {
    let server: TestHTTPServer
    let client: CurlHTTPClient

    init() throws {
        server = try TestHTTPServer.plain.get()
        client = try CurlHTTPClient()
    }

    @Test(arguments: [200, 204, 404, 429, 500, 503])
    func statusComesBackAsIs(code: Int) throws {
        let response = try client.send(HTTPRequest(method: "GET", url: server.url("/status/\(code)")))
        #expect(response.status == code)
        if code == 204 {
            #expect(response.body.isEmpty)
        } else {
            #expect(String(decoding: response.body, as: UTF8.self) == "{\"status\": \(code)}")
        }
    }

    @Test func retryAfterIsReadable() throws {
        let response = try client.send(HTTPRequest(method: "GET", url: server.url("/status/429?retry_after=7")))
        #expect(response.status == 429)
        #expect(response.header("Retry-After") == "7")
        #expect(response.header("retry-after") == "7")
    }

    @Test func responseHeaderNamesAreLowercasedInOrder() throws {
        let response = try client.send(HTTPRequest(method: "GET", url: server.url("/status/200")))
        // Python's server sends Server and Date first, then ours.
        #expect(response.headers.map(\.0) == ["server", "date", "content-type", "content-length"])
        #expect(response.header("content-type") == "application/json")
        #expect(response.header("Content-Length") == "\(response.body.count)")
    }

    @Test func requestHeadersAndBodyArriveIntact() throws {
        let body = [UInt8](0...255) + [UInt8](0...255).reversed()
        let response = try client.send(HTTPRequest(
            method: "POST", url: server.url("/echo?x=1&y=%20"),
            headers: [("X-Trace", "abc 123"), ("Content-Type", "application/octet-stream"),
                      ("X-Empty", ""), ("Authorization", "Bearer token"), ("X-Trace", "second")],
            body: body))
        #expect(response.status == 200)
        let echo = try EchoDocument(response)
        #expect(echo.method == "POST")
        #expect(echo.path == "/echo?x=1&y=%20")
        #expect(echo.bodyBytes == body)
        #expect(echo.values("X-Trace") == ["abc 123", "second"])
        #expect(echo.values("X-Empty") == [""])
        #expect(echo.values("Authorization") == ["Bearer token"])
        #expect(echo.values("Content-Type") == ["application/octet-stream"])
        #expect(echo.values("Content-Length") == ["\(body.count)"])
        #expect(echo.values("Expect").isEmpty)
        let sent = echo.headerNames.filter { ["X-Trace", "X-Empty", "Authorization"].contains($0) }
        #expect(sent == ["X-Trace", "X-Empty", "Authorization", "X-Trace"])
    }

    @Test func bodyWithoutContentTypeGetsNone() throws {
        let response = try client.send(HTTPRequest(method: "POST", url: server.url("/echo"), body: Array("a=b".utf8)))
        let echo = try EchoDocument(response)
        // libcurl would otherwise claim application/x-www-form-urlencoded.
        #expect(echo.values("Content-Type").isEmpty)
        #expect(echo.bodyBytes == Array("a=b".utf8))
    }

    @Test func emptyPostSendsContentLengthZero() throws {
        let echo = try EchoDocument(client.send(HTTPRequest(method: "POST", url: server.url("/echo"))))
        #expect(echo.method == "POST")
        #expect(echo.values("Content-Length") == ["0"])
        #expect(echo.bodyBytes == [])
    }

    @Test func largeBodyIsSentWithoutWaitingForContinue() throws {
        // Over libcurl's 1 MiB "Expect: 100-continue" threshold.
        let body = (0..<(1_500_000)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let echo = try EchoDocument(client.send(HTTPRequest(method: "PUT", url: server.url("/echo"), body: body)))
        #expect(echo.values("Expect").isEmpty)
        #expect(echo.bodyBytes == body)
    }

    @Test(arguments: ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
    func methodArrivesWithItsBody(method: String) throws {
        let body = method == "GET" ? [] : Array("payload for \(method)".utf8)
        let response = try client.send(HTTPRequest(method: method, url: server.url("/echo"), body: body))
        #expect(response.status == 200)
        let echo = try EchoDocument(response)
        #expect(echo.method == method)
        #expect(echo.bodyBytes == body)
    }

    @Test func deleteWithoutBodySendsNoContentLength() throws {
        let echo = try EchoDocument(client.send(HTTPRequest(method: "DELETE", url: server.url("/echo"))))
        #expect(echo.method == "DELETE")
        #expect(echo.values("Content-Length").isEmpty)
    }

    @Test func headHasHeadersButNoBody() throws {
        let response = try client.send(HTTPRequest(method: "HEAD", url: server.url("/bytes/5000")))
        #expect(response.status == 200)
        #expect(response.header("content-length") == "5000")
        #expect(response.body.isEmpty)
    }

    @Test func bodyAtTheCapIsAccepted() throws {
        for path in ["/bytes/1000", "/bytes/1000?chunked=1"] {
            let response = try client.send(HTTPRequest(method: "GET", url: server.url(path), maximumResponseBytes: 1000))
            #expect(response.body == [UInt8](repeating: UInt8(ascii: "x"), count: 1000), "\(path)")
        }
    }

    @Test func oneClientServesManyRequestsOnOneConnection() throws {
        var ports: Set<Int> = []
        for index in 0..<40 {
            let response = try client.send(HTTPRequest(
                method: "POST", url: server.url("/echo"), headers: [("X-Index", "\(index)")],
                body: Array("request \(index)".utf8)))
            let echo = try EchoDocument(response)
            // Each request starts from libcurl's defaults: nothing leaks from the last one.
            #expect(echo.values("X-Index") == ["\(index)"])
            #expect(echo.bodyBytes == Array("request \(index)".utf8))
            ports.insert(echo.client_port)
            #expect(try client.send(HTTPRequest(method: "GET", url: server.url("/status/404"))).status == 404)
        }
        // The handle keeps its connection between requests (reset keeps the cache).
        #expect(ports.count == 1)
    }

    @Test func clientRecoversAfterFailures() throws {
        let failures = [
            HTTPRequest(method: "GET", url: server.url("/slow/3000"), timeout: .milliseconds(200)),
            HTTPRequest(method: "GET", url: server.url("/drop")),
            HTTPRequest(method: "GET", url: server.url("/bytes/5000"), maximumResponseBytes: 10),
            HTTPRequest(method: "GET", url: "file:///etc/hostname"),
        ]
        for request in failures {
            #expect(throws: HTTPError.self) { try client.send(request) }
            let echo = try EchoDocument(client.send(HTTPRequest(method: "GET", url: server.url("/echo"))))
            #expect(echo.method == "GET")
            #expect(echo.bodyBytes == [])
        }
    }

    @Test func concurrentCallersShareOneClient() async throws {
        let client = self.client, server = self.server
        try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<4 {
                group.addTask {
                    var ok = 0
                    for index in 0..<10 {
                        let body = Array("task \(task) request \(index)".utf8)
                        let echo = try EchoDocument(client.send(HTTPRequest(method: "POST", url: server.url("/echo"), body: body)))
                        if echo.bodyBytes == body { ok += 1 }
                    }
                    return ok
                }
            }
            var total = 0
            for try await ok in group { total += ok }
            #expect(total == 40)
        }
    }
}
