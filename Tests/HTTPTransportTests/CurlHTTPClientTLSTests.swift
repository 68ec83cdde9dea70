import Foundation
import HTTPTransport
import StorekeeperCore
import Testing

/// HTTPS against the test server's own CA. Verification cannot be switched off, so every
/// trust failure must surface as .tlsFailure.
@Suite(.timeLimit(.minutes(1)))
struct CurlHTTPClientTLSTests {
    let server: TestHTTPServer

    init() throws {
        server = try TestHTTPServer.tls.get()
    }

    @Test func trustedCAWorks() throws {
        let client = try CurlHTTPClient(caBundlePath: server.caBundlePath)
        let response = try client.send(HTTPRequest(method: "POST", url: server.url("/echo"), body: Array("over TLS".utf8)))
        #expect(response.status == 200)
        #expect(try EchoDocument(response).bodyBytes == Array("over TLS".utf8))
        let byName = try client.send(HTTPRequest(method: "GET", url: "https://localhost:\(server.port)/status/204"))
        #expect(byName.status == 204)
    }

    @Test func systemTrustStoreDoesNotTrustTheTestCA() throws {
        let client = try CurlHTTPClient()
        let error = #expect(throws: HTTPError.self) {
            try client.send(HTTPRequest(method: "GET", url: server.url("/status/200")))
        }
        #expect(error?.kind == .tlsFailure, "\(String(describing: error))")
        #expect(error?.isRetryable == false)
    }

    @Test func anotherCAIsNotTrusted() throws {
        // The other server's CA is a different, freshly made CA; the bundle holds only it.
        let other = try TestHTTPServer.wrongName.get()
        let client = try CurlHTTPClient(caBundlePath: other.caBundlePath)
        let error = #expect(throws: HTTPError.self) {
            try client.send(HTTPRequest(method: "GET", url: server.url("/status/200")))
        }
        #expect(error?.kind == .tlsFailure, "\(String(describing: error))")
    }

    @Test func certificateForAnotherHostIsRefused() throws {
        let other = try TestHTTPServer.wrongName.get()
        let client = try CurlHTTPClient(caBundlePath: other.caBundlePath)
        let error = #expect(throws: HTTPError.self) {
            try client.send(HTTPRequest(method: "GET", url: other.url("/status/200")))
        }
        #expect(error?.kind == .tlsFailure, "\(String(describing: error))")
    }

    @Test func httpsToAPlainServerIsTLSFailure() throws {
        let plain = try TestHTTPServer.plain.get()
        let client = try CurlHTTPClient(caBundlePath: server.caBundlePath)
        let error = #expect(throws: HTTPError.self) {
            try client.send(HTTPRequest(method: "GET", url: "https://127.0.0.1:\(plain.port)/status/200"))
        }
        #expect(error?.kind == .tlsFailure, "\(String(describing: error))")
    }

    @Test func unreadableCABundleIsRefusedUpFront() {
        let error = #expect(throws: HTTPError.self) {
            _ = try CurlHTTPClient(caBundlePath: "/nonexistent/storekeeper/ca.pem")
        }
        #expect(error?.kind == .tlsFailure)
    }

    @Test func connectionsAreReusedOverTLS() throws {
        let client = try CurlHTTPClient(caBundlePath: server.caBundlePath)
        var ports: Set<Int> = []
        for _ in 0..<5 {
            ports.insert(try EchoDocument(client.send(HTTPRequest(method: "GET", url: server.url("/echo")))).client_port)
        }
        #expect(ports.count == 1)
    }
}
