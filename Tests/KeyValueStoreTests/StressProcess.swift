import Foundation
import TestSupport

/// Runs the `store-stress` tool (Tests/Tools/store-stress) as real processes, several at once.
enum StressProcess {
    /// Next to the test bundle in the build products folder (both are built by
    /// `swift build --build-tests`), or in STOREKEEPER_BIN_DIR when set.
    static let binary: String = {
        if let folder = ProcessInfo.processInfo.environment["STOREKEEPER_BIN_DIR"] {
            return folder + "/store-stress"
        }
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("store-stress").path
    }()

    /// One process per argument list; they all wait for one shared instant before touching
    /// the store (STORE_STRESS_START_AT), so they really race.
    static func runTogether(_ argumentLists: [[String]]) async throws -> [ChildProcess.Result] {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw ChildProcess.Failure("store-stress is not built at \(binary): run swift build --build-tests")
        }
        let startAt = Int64(Date().timeIntervalSince1970 * 1_000) + 400 + 40 * Int64(argumentLists.count)
        var environment = ProcessInfo.processInfo.environment
        environment["STORE_STRESS_START_AT"] = String(startAt)
        // For a rediss:// locator (StoreBackend.redisTLS); a redis:// or sqlite: one ignores them.
        environment["STORE_TLS_CA_FILE"] = RedisTestServer.TLS.fixture("ca.pem")
        environment["STORE_TLS_CERT_FILE"] = RedisTestServer.TLS.fixture("client.pem")
        environment["STORE_TLS_KEY_FILE"] = RedisTestServer.TLS.fixture("client.key")
        return try await ChildProcess.runTogether(argumentLists.map { (binary, $0) }, environment: environment)
    }
}
