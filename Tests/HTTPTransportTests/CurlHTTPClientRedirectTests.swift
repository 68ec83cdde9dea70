import Foundation
import HTTPTransport
import StorekeeperCore
import Testing

@Suite(.timeLimit(.minutes(1)))
struct CurlHTTPClientRedirectTests {
    let server: TestHTTPServer
    let client: CurlHTTPClient

    init() throws {
        server = try TestHTTPServer.plain.get()
        client = try CurlHTTPClient()
    }

    @Test func redirectIsReturnedAsIsByDefault() throws {
        let response = try client.send(HTTPRequest(method: "GET", url: server.url("/redirect/2")))
        #expect(response.status == 302)
        #expect(response.header("location") == "/redirect/1")
        #expect(response.header("x-redirect-hop") == "2")
        #expect(String(decoding: response.body, as: UTF8.self) == "{\"redirect\": \"/redirect/1\"}")
    }

    @Test func redirectsAreFollowedWhenAsked() throws {
        let response = try client.send(HTTPRequest(
            method: "GET", url: server.url("/redirect/3"), headers: [("X-Trace", "kept")], followRedirects: true))
        #expect(response.status == 200)
        let echo = try EchoDocument(response)
        #expect(echo.path == "/echo")
        #expect(echo.values("X-Trace") == ["kept"])
        // Only the final response's headers: the 302s' are gone.
        #expect(response.header("location") == nil)
        #expect(response.header("x-redirect-hop") == nil)
        #expect(response.headers.filter { $0.0 == "content-length" }.count == 1)
        #expect(response.header("content-length") == "\(response.body.count)")
    }

    @Test func moreThanThreeRedirectsFail() {
        let error = #expect(throws: HTTPError.self) {
            try client.send(HTTPRequest(method: "GET", url: server.url("/redirect/4"), followRedirects: true))
        }
        #expect(error?.kind == .failed, "\(String(describing: error))")
    }

    @Test func redirectToAnotherProtocolIsNotFollowed() {
        let error = #expect(throws: HTTPError.self) {
            try client.send(HTTPRequest(method: "GET", url: server.url("/redirect/1?to=file:///etc/hostname"),
                                        followRedirects: true))
        }
        #expect(error?.kind == .invalidURL, "\(String(describing: error))")
    }

    @Test func followingDoesNotLeakIntoTheNextRequest() throws {
        _ = try client.send(HTTPRequest(method: "GET", url: server.url("/redirect/1"), followRedirects: true))
        let response = try client.send(HTTPRequest(method: "GET", url: server.url("/redirect/1")))
        #expect(response.status == 302)
    }
}
