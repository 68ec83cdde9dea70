import COpenSSL
import Foundation
import Glibc
import OpenSSLCrypto
@testable import RedisStore
import StorekeeperCore
import TestSupport
import Testing

/// `rediss://` against a real redis-server with a TLS port (its certificates from
/// Tests/Fixtures/redis-tls/make-redis-tls.sh): what verifies, what is refused and how
/// (exit 78 for a certificate or handshake refused, 75 for an outage), and that nothing
/// hangs. The store's behaviour over TLS is KeyValueStoreConformanceTests (StoreBackend.redisTLS).
@Suite("RedisStore over TLS", .enabled(if: RedisTestServer.shouldRun,
                                       "redis-server is not installed (apt-get install redis-server); with CI set this fails instead"))
struct RedisTLSTests {
    static func fixture(_ name: String) -> String { RedisTestServer.TLS.fixture(name) }
    static let trusting = TLSClientOptions(caFile: fixture("ca.pem"))
    static let mutual = StoreBackend.clientTLS

    /// The reason of the StoreError `body` throws, after checking its kind.
    static func reason(_ kind: StoreError.Kind, _ body: () throws -> Void,
                       sourceLocation: SourceLocation = #_sourceLocation) -> String {
        do {
            try body()
            Issue.record("no error; expected \(kind)", sourceLocation: sourceLocation)
        } catch let error as StoreError {
            #expect(error.kind == kind, "\(error.reason)", sourceLocation: sourceLocation)
            return error.reason
        } catch {
            Issue.record("not a StoreError: \(error)", sourceLocation: sourceLocation)
        }
        return ""
    }

    @Test func aTrustedServerAnswersByDNSNameAndByIPAddress() throws {
        let server = try RedisTestServer.start(tls: .init())
        defer { server.stop() }
        for host in ["localhost", "127.0.0.1"] {
            let store = try RedisStore(url: try #require(server.tlsURL(host: host)), tls: Self.trusting)
            try store.set("k-\(host)", [0, 1, 2], expiresIn: nil)
            #expect(try store.get("k-\(host)")?.bytes == [0, 1, 2])
        }
        // What went over TLS is what a plaintext client of the same server reads.
        #expect(try RedisStore(url: server.url()).get("k-localhost")?.bytes == [0, 1, 2])
    }

    /// SSL_get_error consults the thread's error queue before the call's result, so an error
    /// another library left there (libcurl leaves "shutdown while in init" when it closes a
    /// connection whose handshake failed) turned an ordinary wait for the server's reply
    /// into "TLS read: shutdown while in init": the flake seen under the full suite's load,
    /// when a reply came late. Here the stale error is left by that same call, on this one
    /// thread (a synchronous test does not change threads), and the reply is made late by
    /// freezing the server for a moment, so every read has to wait.
    @Test func anErrorLeftOnTheThreadByAnotherLibraryIsNotOurs() throws {
        let server = try RedisTestServer.start(tls: .init())
        defer { server.stop() }
        func leaveAStaleError() throws {
            let context = try #require(SSL_CTX_new(TLS_client_method()))
            defer { SSL_CTX_free(context) }
            let ssl = try #require(SSL_new(context))
            defer { SSL_free(ssl) }
            SSL_set_connect_state(ssl)
            #expect(SSL_shutdown(ssl) < 0)
            #expect(ERR_peek_error() != 0, "SSL_shutdown before the handshake left no error to be stale")
        }
        /// Runs `body` while the server is frozen for its first 50 ms.
        func withALateReply(_ body: () throws -> Void) throws {
            server.pause()
            let thaw = Thread { usleep(50_000); server.resume() }
            thaw.start()
            defer { server.resume() }
            try body()
        }
        let store = try RedisStore(url: try #require(server.tlsURL()), tls: Self.trusting)
        for round in 0..<3 {
            try leaveAStaleError()
            try withALateReply { try store.set("k\(round)", [UInt8(round)], expiresIn: nil) }
            try leaveAStaleError()
            var read: [UInt8]?
            try withALateReply { read = try store.get("k\(round)")?.bytes }
            #expect(read == [UInt8(round)])
        }
        ERR_clear_error()
    }

    @Test func aPasswordAndADatabaseOverTLS() throws {
        let server = try RedisTestServer.start(password: "s3cret", tls: .init())
        defer { server.stop() }
        let url = try #require(server.tlsURL(database: 3))
        let store = try RedisStore(url: url, tls: Self.trusting)
        try store.set("k", [9], expiresIn: nil)
        #expect(try RedisStore(url: server.url(database: 3)).get("k")?.bytes == [9])
        let wrong = url.replacingOccurrences(of: "s3cret", with: "wrong")
        let reason = Self.reason(.invalidConfiguration) { _ = try RedisStore(url: wrong, tls: Self.trusting) }
        #expect(!reason.contains("wrong") && !reason.contains("s3cret"), "\(reason)")
    }

    @Test func aServerSignedByAnotherCAIsRefused() throws {
        let server = try RedisTestServer.start(tls: .init())
        defer { server.stop() }
        let url = try #require(server.tlsURL())
        let wrongCA = Self.reason(.invalidConfiguration) {
            _ = try RedisStore(url: url, tls: TLSClientOptions(caFile: Self.fixture("wrong-ca.pem")))
        }
        #expect(wrongCA.contains("not signed by a CA we trust"), "\(wrongCA)")
        // The system's CAs do not know the test CA either.
        let system = Self.reason(.invalidConfiguration) { _ = try RedisStore(url: url) }
        #expect(system.contains("not signed by a CA we trust"), "\(system)")
    }

    @Test func aNameTheCertificateLacksIsRefused() throws {
        // server-elsewhere names only redis.invalid: not localhost, and no IP address at all.
        let server = try RedisTestServer.start(tls: .init(certificate: "server-elsewhere"))
        defer { server.stop() }
        let byName = Self.reason(.invalidConfiguration) {
            _ = try RedisStore(url: try #require(server.tlsURL(host: "localhost")), tls: Self.trusting)
        }
        #expect(byName.contains("X509 error \(62)"), "hostname mismatch: \(byName)")
        let byAddress = Self.reason(.invalidConfiguration) {
            _ = try RedisStore(url: try #require(server.tlsURL(host: "127.0.0.1")), tls: Self.trusting)
        }
        #expect(byAddress.contains("X509 error \(64)"), "IP address mismatch: \(byAddress)")
    }

    @Test func anExpiredCertificateIsRefused() throws {
        let server = try RedisTestServer.start(tls: .init(certificate: "server-expired"))
        defer { server.stop() }
        let reason = Self.reason(.invalidConfiguration) {
            _ = try RedisStore(url: try #require(server.tlsURL()), tls: Self.trusting)
        }
        #expect(reason.contains("validity period"), "\(reason)")
    }

    @Test func aServerThatDemandsAClientCertificate() throws {
        let server = try RedisTestServer.start(tls: .init(authenticatesClients: true))
        defer { server.stop() }
        let url = try #require(server.tlsURL())
        // None sent: refused when the store opens (its first round trip), not at first use.
        let none = Self.reason(.invalidConfiguration) { _ = try RedisStore(url: url, tls: Self.trusting) }
        #expect(none.contains("refused our client certificate"), "\(none)")
        // One the server's client CA did not sign.
        let stranger = TLSClientOptions(caFile: Self.fixture("ca.pem"), certificateFile: Self.fixture("stranger.pem"),
                                        keyFile: Self.fixture("stranger.key"))
        let refused = Self.reason(.invalidConfiguration) { _ = try RedisStore(url: url, tls: stranger) }
        #expect(refused.contains("refused our client certificate"), "\(refused)")
        let store = try RedisStore(url: url, tls: Self.mutual)
        try store.set("k", [1], expiresIn: nil)
        #expect(try store.get("k")?.bytes == [1])
    }

    @Test func clientFilesAreCheckedBeforeConnecting() throws {
        let url = "rediss://localhost:\(try RedisTestServer.freePort())"
        let halves = [TLSClientOptions(caFile: Self.fixture("ca.pem"), certificateFile: Self.fixture("client.pem")),
                      TLSClientOptions(caFile: Self.fixture("ca.pem"), keyFile: Self.fixture("client.key")),
                      TLSClientOptions(caFile: Self.fixture("missing.pem")),
                      TLSClientOptions(certificateFile: Self.fixture("client.pem"), keyFile: Self.fixture("stranger.key"))]
        for options in halves {
            // Nobody listens there: a configuration error proves the check came first.
            _ = Self.reason(.invalidConfiguration) { _ = try RedisStore(url: url, tls: options) }
        }
        // TLS files with a plaintext URL would be ignored: refused instead.
        _ = Self.reason(.invalidConfiguration) {
            _ = try RedisStore(url: "redis://127.0.0.1:\(try RedisTestServer.freePort())", tls: Self.trusting)
        }
    }

    @Test func aPlaintextClientOnTheTLSPortFailsInsteadOfHanging() throws {
        let server = try RedisTestServer.start(tls: .init())
        defer { server.stop() }
        let started = ContinuousClock.now
        let error = #expect(throws: StoreError.self) {
            let store = try RedisStore(url: "redis://127.0.0.1:\(try #require(server.tlsPort))", timeout: .milliseconds(500))
            _ = try store.get("k")
        }
        #expect(error.map { [.unavailable, .invalidConfiguration].contains($0.kind) } == true, "\(String(describing: error))")
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test func aTLSClientOnThePlaintextPortFailsInsteadOfHanging() throws {
        let server = try RedisTestServer.start(tls: .init())
        defer { server.stop() }
        let started = ContinuousClock.now
        let error = #expect(throws: StoreError.self) {
            _ = try RedisStore(url: "rediss://localhost:\(server.port)", tls: Self.trusting, timeout: .milliseconds(500))
        }
        #expect(error.map { [.unavailable, .invalidConfiguration].contains($0.kind) } == true, "\(String(describing: error))")
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test func aServerThatHangsUpInTheHandshakeIsUnavailable() throws {
        // A listener that accepts and closes at once: a server going away, not one that
        // disagrees about TLS, so retryable (75), not the configuration's (78).
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                try #require(bind(listener, raw, length) == 0 && listen(listener, 4) == 0)
                try #require(getsockname(listener, raw, &length) == 0)
            }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let hungUp = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let accepted = accept(listener, nil, nil)
            if accepted >= 0 { close(accepted) }
            hungUp.signal()
        }
        let reason = Self.reason(.unavailable) {
            _ = try RedisStore(url: "rediss://localhost:\(port)", tls: Self.trusting, timeout: .seconds(10))
        }
        #expect(reason.contains("closed") || reason.contains("ended") || reason.contains("reset"), "\(reason)")
        hungUp.wait()
    }

    @Test func aServerKilledMidRunIsUnavailableThenComesBack() throws {
        let server = try RedisTestServer.start(tls: .init())
        defer { server.stop() }
        let store = try RedisStore(url: try #require(server.tlsURL()), tls: Self.trusting)
        try store.set("k", [1], expiresIn: nil)
        server.kill()
        // Several MB to a dead socket, as for plaintext: SIGPIPE must not kill the process.
        for _ in 0..<2 {
            _ = Self.reason(.unavailable) { try store.set("big", [UInt8](repeating: 1, count: 8 << 20), expiresIn: nil) }
        }
        _ = Self.reason(.unavailable) { _ = try store.get("k") }
        try server.restart()
        #expect(try store.get("k") == nil)
        try store.set("k", [2], expiresIn: nil)
        #expect(try store.get("k")?.bytes == [2])
    }

    @Test func aHungServerTimesOut() throws {
        let server = try RedisTestServer.start(tls: .init())
        defer { server.stop() }
        let url = try #require(server.tlsURL())
        let store = try RedisStore(url: url, tls: Self.trusting, timeout: .milliseconds(300))
        try store.set("k", [1], expiresIn: nil)
        server.pause()
        var started = ContinuousClock.now
        _ = Self.reason(.unavailable) { _ = try store.get("k") }
        #expect(ContinuousClock.now - started < .seconds(20))
        // A new store waits for a handshake nobody answers (the kernel still accepts).
        started = ContinuousClock.now
        _ = Self.reason(.unavailable) { _ = try RedisStore(url: url, tls: Self.trusting, timeout: .milliseconds(300)) }
        #expect(ContinuousClock.now - started < .seconds(20))
        server.resume()
        #expect(try store.get("k")?.bytes == [1])
    }
}
