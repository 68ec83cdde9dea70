import Foundation
import Testing
import TestSupport

/// Notifications V2 to entitlements, end to end: the built binaries behind a real lighttpd
/// (CGI), on a real redis-server and on the SQLite default, with the worker run, killed and
/// run again as cron would. Every suite below starts what it needs on free ports and stops it.
///
/// Serialized, all of it: each case starts servers and dozens of processes, and this runs on
/// small machines (two cores); side by side they would only measure each other.
@Suite("End to end: notifications to entitlements through lighttpd, Redis and SQLite", .serialized,
       .enabled(if: E2E.shouldRun, "lighttpd or redis-server is not installed (the reason is printed); with CI set this fails instead"))
enum EndToEnd {}

/// What the end-to-end suites share: the deployment's settings and the tools they need.
enum E2E {
    static let bundleId = "com.example.storekeeper"
    static let appAppleId = 1_234_567_890
    static let pki = FunctionBinary.repositoryRoot.appendingPathComponent("Tests/Fixtures/pki")

    /// Why the suites cannot run here (lighttpd or redis-server missing), nil when they can.
    static let unavailableReason: String? = {
        var missing: [String] = []
        if Gateway.executable == nil { missing.append("lighttpd is not installed (apt-get install lighttpd, or set LIGHTTPD to its path)") }
        if Gateway.nginx == nil { missing.append("nginx is not installed (apt-get install nginx, or set NGINX to its path)") }
        if Gateway.spawnFCGI == nil { missing.append("spawn-fcgi is not installed (apt-get install spawn-fcgi, or set SPAWN_FCGI)") }
        if let reason = RedisTestServer.unavailableReason { missing.append(reason) }
        return missing.isEmpty ? nil : missing.joined(separator: "; ")
    }()

    /// Run when everything is here, or when CI is set: a missing server then fails every case
    /// with `unavailableReason` rather than passing silently.
    static let shouldRun: Bool = {
        if unavailableReason == nil { return true }
        if ProcessInfo.processInfo.environment["CI"] != nil { return true }
        print("EndToEnd: skipped: \(unavailableReason ?? "")")
        return false
    }()

    /// Throws the reason when a tool is missing (reached only with CI set).
    static func requireTools() throws {
        if let unavailableReason { throw SpawnedProcess.Failure("end-to-end tests cannot run: \(unavailableReason)") }
    }

    /// What every function of the deployment under test is given. No OCSP responder runs, so
    /// online checks are off and chains are validated at each payload's signedDate.
    static func environment(storeURL: String, adminToken: String) -> [String: String] {
        [
            "STORE_URL": storeURL,
            "STOREKEEPER_ADMIN_TOKEN": adminToken,
            "APPSTORE_ONLINE_CHECKS": "off",
            "APPSTORE_ENVIRONMENT": "Sandbox",
            "APPSTORE_BUNDLE_ID": bundleId,
            "APPSTORE_APP_APPLE_ID": String(appAppleId),
            "APPSTORE_ROOT_CERTS": pki.appendingPathComponent("root.pem").path,
            "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
        ]
    }

    /// A scratch folder for one case, removed by `remove()`.
    static func scratchFolder(_ label: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-e2e-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Milliseconds since 1970, now.
    static var nowMilliseconds: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
