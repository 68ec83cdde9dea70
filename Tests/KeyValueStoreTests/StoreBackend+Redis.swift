import Foundation
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

    /// `[.redis]` when redis-server can run here, or when CI is set (a missing server then
    /// fails every Redis case with the reason); otherwise none, and the reason is printed.
    static let redisWhenAvailable: [StoreBackend] = {
        guard RedisTestServer.shouldRun else {
            print("KeyValueStoreConformanceTests: Redis backend skipped: \(RedisTestServer.unavailableReason ?? "unknown reason")")
            return []
        }
        return [.redis]
    }()
}
