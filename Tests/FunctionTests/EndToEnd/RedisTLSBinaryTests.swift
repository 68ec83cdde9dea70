import Foundation
import RedisStore
import StorekeeperCore
import Testing
import TestSupport

/// `rediss://` through the built binaries: the webhook, the worker and the read path work
/// over TLS with a client certificate; a server certificate we do not trust, or a client
/// certificate half given, is exit 78 with the reason in the log only; the server gone is
/// 503 / exit 75. Certificates from Tests/Fixtures/redis-tls.
@Suite("Redis over TLS through the binaries", .serialized,
       .enabled(if: RedisTestServer.shouldRun, "redis-server is not installed"))
struct RedisTLSBinaryTests {
    static func fixture(_ name: String) -> String { RedisTestServer.TLS.fixture(name) }

    static func environment(_ url: String, ca: String = "ca.pem", client: Bool = true) -> [String: String] {
        var environment = E2E.environment(storeURL: url, adminToken: "x")
        environment["STORE_TLS_CA_FILE"] = fixture(ca)
        if client {
            environment["STORE_TLS_CERT_FILE"] = fixture("client.pem")
            environment["STORE_TLS_KEY_FILE"] = fixture("client.key")
        }
        return environment
    }

    @Test("A notification received, applied and read over rediss:// with mutual TLS")
    func theWholePathOverTLS() throws {
        let server = try RedisTestServer.start(tls: .init(authenticatesClients: true))
        defer { server.stop() }
        let environment = Self.environment(try #require(server.tlsURL(database: 2)))
        let story = Scene.story(group: 0x5f31)
        let payload = try #require(try Binaries.sign(story.notifications).first)

        let webhook = try Scene.deliverOverHTTP(payload, environment: environment)
        #expect(webhook.status == 200 && webhook.exitCode == 0, "\(webhook)")
        let plain = try RedisStore(url: server.url(database: 2))
        #expect(try plain.pendingCount(in: StoreKeys.notificationQueue) == 1)
        for run in try Scene.readAndWork(environment: environment, appAccountToken: story.appAccountToken) {
            #expect(run.exitCode == 0, "\(run)")
        }
        // The worker's run went over TLS too: the queue it drained is the server's.
        #expect(try plain.pendingCount(in: StoreKeys.notificationQueue) == 0)
    }

    @Test("A server certificate from a CA we do not trust: exit 78, the log says whose configuration; no host in any answer")
    func anUntrustedServer() throws {
        let server = try RedisTestServer.start(tls: .init())
        defer { server.stop() }
        let environment = Self.environment(try #require(server.tlsURL()), ca: "wrong-ca.pem", client: false)
        let leaks = ["localhost", String(server.tlsPort ?? 0), "certificate", "TLS", "redis", "Redis"]
        for run in try Scene.readAndWork(environment: environment, appAccountToken: UUID().uuidString) {
            #expect(run.exitCode == 78, "\(run)")
            #expect(run.errorCode == "configuration_error", "\(run)")
            Scene.expectNoLeak(run.stdout, leaks)
            #expect(run.stderr.contains("store_configuration_error") && run.stderr.contains("not signed by a CA we trust"),
                    "the log says why: \(run.stderr)")
        }
    }

    @Test("A client certificate without its key: exit 78 before anything connects")
    func halfAClientCertificate() throws {
        var environment = Self.environment("rediss://localhost:\(try RedisTestServer.freePort())/0")
        environment["STORE_TLS_KEY_FILE"] = nil
        for run in try Scene.readAndWork(environment: environment, appAccountToken: UUID().uuidString) {
            #expect(run.exitCode == 78, "\(run)")
            #expect(run.errorCode == "configuration_error", "\(run)")
        }
        // TLS files with a plaintext or SQLite store would be ignored: refused instead.
        for url in ["redis://127.0.0.1:\(try RedisTestServer.freePort())/0", "sqlite:" + NSTemporaryDirectory() + "/tls-\(UUID()).db"] {
            for run in try Scene.readAndWork(environment: Self.environment(url), appAccountToken: UUID().uuidString) {
                #expect(run.exitCode == 78, "\(run)")
            }
        }
    }

    @Test("The TLS server gone: 503 / exit 75, as for any store outage")
    func aServerGone() throws {
        let server = try RedisTestServer.start(tls: .init(authenticatesClients: true))
        let environment = Self.environment(try #require(server.tlsURL()))
        server.kill()
        let story = Scene.story(group: 0x5f32)
        let payload = try #require(try Binaries.sign(story.notifications).first)
        let leaks = ["localhost", String(server.tlsPort ?? 0), "refused", "redis", "Redis", "TLS"]
        let webhook = try Scene.deliverOverHTTP(payload, environment: environment)
        #expect(webhook.status == 503 && webhook.exitCode == 75, "\(webhook)")
        Scene.expectGenericRetry(webhook.stdout, leaks)
        for run in try Scene.readAndWork(environment: environment, appAccountToken: story.appAccountToken) {
            #expect(run.exitCode == 75, "\(run)")
            Scene.expectGenericRetry(run.stdout, leaks)
        }
    }
}
