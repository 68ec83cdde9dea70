import Foundation
import StorekeeperCore
import Testing
import TestSupport

/// storekeeper_webhook_deliveries_total through the built binaries: deliver-events counts each
/// pass's attempts per endpoint (replay-events each replay's), metrics answers them,
/// prometheus-client's parser reads them.
@Suite("deliver-events and replay-events count their attempts per endpoint and result; metrics answers them", .serialized,
       .enabled(if: E2E.shouldRun, "redis-server or lighttpd is not installed (see EndToEnd)"))
struct DeliverEventsMetricsTests {
    /// Two endpoints of the catalog: `good` (the receiver) and `gone` (nothing listens on port 9).
    static func bed(_ backend: Backend, folder: URL) throws -> WebhookTestbed {
        var bed = try WebhookTestbed(backend, secrets: ["/good": WebhookTestbed.secret, "/gone": WebhookTestbed.newSecret])
        let catalog = folder.appendingPathComponent("catalog.json")
        try writeCatalog(catalog, good: bed.receiver.url("/good"), gone: "http://127.0.0.1:9/hooks")
        bed.environment["STOREKEEPER_WEBHOOK_URL"] = nil
        bed.environment["STOREKEEPER_WEBHOOK_SECRET"] = nil
        bed.environment["STOREKEEPER_CATALOG"] = catalog.path
        bed.environment["GOOD_SECRET"] = WebhookTestbed.secret
        bed.environment["GONE_SECRET"] = WebhookTestbed.newSecret
        return bed
    }

    static func writeCatalog(_ catalog: URL, good: String, gone: String) throws {
        let document: [String: Any] = [
            "apps": [["bundleId": "com.example.app", "environments": ["Sandbox"]]],
            "webhooks": [
                ["name": "good", "url": good, "secretEnv": "GOOD_SECRET"],
                ["name": "gone", "url": gone, "secretEnv": "GONE_SECRET"],
            ],
        ]
        try JSONSerialization.data(withJSONObject: document).write(to: catalog)
    }

    static func deliveries(_ bed: WebhookTestbed) throws -> [PrometheusParser.Family] {
        let result = try FunctionBinary(name: "metrics").run(stdin: Data("{}".utf8), environment: bed.environment)
        #expect(result.exitCode == 0, "\(result.stderrText.suffix(2000))")
        let families = try PrometheusParser.parse(result.stdoutText)
        #expect(families.first { $0.name == "storekeeper_webhook_deliveries" }?.type == "counter")
        return families
    }

    @Test("one endpoint accepts, one fails until its events are dead: the counts match every pass's answer", arguments: Backend.allCases)
    func countsPerEndpointAndResult(_ backend: Backend) throws {
        let folder = try E2E.scratchFolder("webhook-metrics")
        defer { try? FileManager.default.removeItem(at: folder) }
        var bed = try Self.bed(backend, folder: folder)
        var now = WebhookTestbed.start
        try bed.setNow(now)
        let before = try Self.deliveries(bed)
        for endpoint in ["good", "gone"] {
            for result in ["delivered", "failed", "dead"] {
                #expect(before.value("storekeeper_webhook_deliveries_total", ["endpoint": endpoint, "result": result]) == 0)
            }
        }
        try bed.record([("user-1", .initialPurchase, "Production"), ("user-2", .initialPurchase, "Production")], prefix: "m")
        var answered: [String: [String: Int]] = [:]
        var passes = 0
        while (answered["gone"]?["deadLettered"] ?? 0) < 2 && passes < 60 {
            for endpoint in try bed.run().endpoints {
                let name = endpoint["endpoint"] as? String ?? "?"
                for field in ["delivered", "failed", "deadLettered"] {
                    answered[name, default: [:]][field, default: 0] += endpoint[field] as? Int ?? 0
                }
            }
            passes += 1
            now += 8 * 3600
            try bed.setNow(now)
        }
        #expect(answered["good"] == ["delivered": 2, "failed": 0, "deadLettered": 0], "\(answered)")
        // Each of the two events: several attempts over three days (9 each here, 8 hours apart), the last one dead.
        let failed = answered["gone"]?["failed"] ?? 0
        #expect(failed >= 10 && answered["gone"]?["deadLettered"] == 2, "\(answered)")
        // A pass with nothing to send writes nothing and changes nothing.
        #expect(try bed.run().exitCode == 0)
        let families = try Self.deliveries(bed)
        let expected: [(String, String, Double)] = [("good", "delivered", 2), ("good", "failed", 0), ("good", "dead", 0),
                                                    ("gone", "delivered", 0), ("gone", "failed", Double(failed)), ("gone", "dead", 2)]
        for (endpoint, result, count) in expected {
            #expect(families.value("storekeeper_webhook_deliveries_total", ["endpoint": endpoint, "result": result]) == count,
                    "\(endpoint) \(result)")
        }

        // The endpoint is back: replay-events resends the dead letters and counts its attempts too.
        try Self.writeCatalog(folder.appendingPathComponent("catalog.json"), good: bed.receiver.url("/good"), gone: bed.receiver.url("/gone"))
        let replay = try bed.run("replay-events", #"{"endpoint": "gone"}"#)
        #expect(replay.exitCode == 0 && replay.answer["delivered"] as? Int == 2, "\(replay.answer) \(replay.stderr)")
        let replayed = try Self.deliveries(bed)
        #expect(replayed.value("storekeeper_webhook_deliveries_total", ["endpoint": "gone", "result": "delivered"]) == 2)
        #expect(replayed.value("storekeeper_webhook_deliveries_total", ["endpoint": "gone", "result": "dead"]) == 2)
        #expect(replayed.value("storekeeper_webhook_deliveries_total", ["endpoint": "good", "result": "delivered"]) == 2)
    }
}
