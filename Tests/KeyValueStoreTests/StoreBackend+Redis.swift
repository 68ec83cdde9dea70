import Foundation
import OpenSSLCrypto
import RedisStore
import StorekeeperCore
import TestSupport

extension StoreBackend {
    /// A new database (SELECT n) on a redis-server shared by the test process, started on
    /// first use and killed at exit; `store-stress` processes open the same URL.
    static let redis = StoreBackend(
        name: "Redis",
        makeLocator: { try RedisTestServer.freshDatabase() },
        open: { locator in
            guard locator.hasPrefix("redis://") else { throw StoreError(.invalidConfiguration, locator) }
            return try RedisStore(url: locator)
        }
    )

    /// The same over TLS: a new database on a shared redis-server whose TLS port demands a
    /// client certificate, reached as `rediss://localhost` (so SNI and the DNS name check run).
    static let redisTLS = StoreBackend(
        name: "Redis over TLS",
        makeLocator: { try RedisTestServer.freshTLSDatabase() },
        open: { locator in
            guard locator.hasPrefix("rediss://") else { throw StoreError(.invalidConfiguration, locator) }
            return try RedisStore(url: locator, tls: clientTLS)
        }
    )

    /// A Redis Cluster of three primaries of its own (a cluster has one database, so no two
    /// tests can share one), named by its first node: the router must find the cluster,
    /// and every key not in that node's slots is redirected or routed.
    static let redisCluster = StoreBackend(
        name: "Redis Cluster",
        makeLocator: { try RedisTestCluster.keptUntilExit(primaries: 3).url() },
        open: { locator in
            guard locator.hasPrefix("redis://") else { throw StoreError(.invalidConfiguration, locator) }
            let store = try RedisStore(url: locator)
            guard store.isCluster else { throw StoreError(.invalidConfiguration, "\(locator) is not a cluster") }
            return store
        }
    )

    /// Trusts the test CA and presents the test client certificate.
    static let clientTLS = TLSClientOptions(caFile: RedisTestServer.TLS.fixture("ca.pem"),
                                            certificateFile: RedisTestServer.TLS.fixture("client.pem"),
                                            keyFile: RedisTestServer.TLS.fixture("client.key"))

    /// `[.redis, .redisTLS, .redisCluster]` when redis-server can run here, or when CI is set (a missing server then
    /// fails every Redis case with the reason); otherwise none, and the reason is printed.
    static let redisWhenAvailable: [StoreBackend] = {
        guard RedisTestServer.shouldRun else {
            print("KeyValueStoreConformanceTests: Redis backend skipped: \(RedisTestServer.unavailableReason ?? "unknown reason")")
            return []
        }
        return [.redis, .redisTLS, .redisCluster]
    }()
}
