import Foundation
import StorekeeperCore
import Testing
import TestSupport

/// deliver-events SIGKILLed again and again while it works through thousands of events, and
/// two endpoints with different filters from the catalog.
@Suite("deliver-events killed at random points: nothing skipped; filtered endpoints", .serialized,
       .enabled(if: E2E.shouldRun, "redis-server or lighttpd is not installed (see EndToEnd)"))
struct DeliverEventsKillTests {
    static let customers = 40
    static let events = 2_000
    static let targetKills = 15

    @Test("2,000 events of 40 customers, deliver-events SIGKILLed up to 15 times, then one clean pass: every id arrives, in order per customer",
          arguments: Backend.allCases)
    func killedDeliverer(_ backend: Backend) throws {
        let bed = try WebhookTestbed(backend)
        var generator = SeededGenerator(seed: 0xDE11_7E55 + UInt64(Backend.allCases.firstIndex(of: backend) ?? 0))
        let specs = (0..<Self.events).map { _ in
            (customer: Optional("user-\(Int.random(in: 0..<Self.customers, using: &generator))"), type: EventType.renewal,
             environment: "Production")
        }
        let recorded = try bed.record(specs, recordedAt: Int64(Date().timeIntervalSince1970 * 1000), prefix: "k")
        let folder = try E2E.scratchFolder("deliver-kill")
        defer { try? FileManager.default.removeItem(at: folder) }
        let request = folder.appendingPathComponent("request.json")
        try Data(#"{"follow": true}"#.utf8).write(to: request)
        let binary = FunctionBinary.binDirectory.appendingPathComponent("deliver-events").path
        var kills = 0
        var midWork = 0
        while kills < Self.targetKills {
            let before = bed.receiver.deliveries().count
            guard Set(bed.receiver.deliveries().map(\.id)).count < recorded.count else { break }
            let process = try SpawnedProcess.spawn(binary, [], environment: bed.environment, directory: FunctionBinary.repositoryRoot.path,
                                                   stdin: request.path, stderr: folder.appendingPathComponent("deliver.log").path)
            // Killed after a random number of deliveries, wherever it is then.
            let wanted = before + Int.random(in: 1...150, using: &generator)
            let hung = Date().addingTimeInterval(60)
            while bed.receiver.deliveries().count < wanted, Date() < hung, process.poll() == nil { usleep(2_000) }
            process.send(SIGKILL)
            _ = process.wait(seconds: 10)
            kills += 1
            let after = Set(bed.receiver.deliveries().map(\.id)).count
            if after > 0 && after < recorded.count { midWork += 1 }
            // The killed run's lease (2 × 1 s + 30 s) would hold the next one back: cleared as an
            // operator would after a crash (its expiry is the store's clock, not the test's).
            try bed.store.open().delete(StoreKeys.webhookLease(endpoint: "default"))
        }
        let final = try bed.run()
        #expect(final.exitCode == 0, "\(final.answer) \(final.stderr.suffix(2000))")
        let deliveries = bed.receiver.deliveries()
        #expect(deliveries.allSatisfy { $0.verified })
        // Nothing skipped: every id arrived (duplicates allowed: at least once).
        #expect(Set(deliveries.map(\.id)) == Set(recorded.map(\.id)))
        // Per customer, first arrivals in log order.
        var expected: [String: [Int64]] = [:]
        for event in recorded { expected[event.customerId ?? "none", default: []].append(event.sequence) }
        #expect(bed.firstArrivals() == expected)
        #expect(midWork >= 5, "\(kills) kills, \(midWork) mid-work")
        print("deliver-events kill test (\(backend.testDescription)): \(recorded.count) events, \(kills) kills (\(midWork) mid-work), \(deliveries.count - recorded.count) duplicates")
    }

    @Test("two endpoints from the catalog: one wants refunds, the other (a chat, one line each) Sandbox events")
    func filteredEndpoints() throws {
        var bed = try WebhookTestbed(secrets: ["/refunds": WebhookTestbed.secret, "/chat": WebhookTestbed.newSecret])
        try bed.setNow(WebhookTestbed.start)
        let folder = try E2E.scratchFolder("webhook-catalog")
        defer { try? FileManager.default.removeItem(at: folder) }
        let catalog = folder.appendingPathComponent("catalog.json")
        let document: [String: Any] = [
            "apps": [["bundleId": "com.example.app", "environments": ["Sandbox"]]],
            "webhooks": [
                ["name": "refunds", "url": bed.receiver.url("/refunds"), "secretEnv": "REFUNDS_SECRET", "types": ["REFUND"]],
                ["name": "chat", "url": bed.receiver.url("/chat"), "secretEnv": "CHAT_SECRET", "environments": ["Sandbox"],
                 "format": "slack"],
            ],
        ]
        try JSONSerialization.data(withJSONObject: document).write(to: catalog)
        var environment = bed.environment
        environment["STOREKEEPER_WEBHOOK_URL"] = nil
        environment["STOREKEEPER_WEBHOOK_SECRET"] = nil
        environment["STOREKEEPER_CATALOG"] = catalog.path
        environment["REFUNDS_SECRET"] = WebhookTestbed.secret
        environment["CHAT_SECRET"] = WebhookTestbed.newSecret
        bed.environment = environment
        try bed.record([("u1", .initialPurchase, "Production"), ("u1", .refund, "Production"), ("u2", .initialPurchase, "Sandbox"),
                        ("u2", .refund, "Sandbox"), ("u3", .renewal, "Production")], prefix: "f")
        let run = try bed.run()
        #expect(run.exitCode == 0, "\(run.answer) \(run.stderr)")
        #expect(bed.receiver.deliveries("/refunds").map(\.id) == ["f-2", "f-4"])
        let chat = bed.receiver.deliveries("/chat")
        #expect(chat.map(\.id) == ["f-3", "f-4"])
        #expect(chat.allSatisfy { $0.verified && $0.type == nil }, "\(chat)")
        #expect(chat.map { ($0.text ?? "").split(separator: " ").first.map(String.init) } == ["INITIAL_PURCHASE", "REFUND"], "\(chat)")
        #expect(run.endpoints.map { $0["skipped"] as? Int } == [3, 3])

        // Both the catalog's webhooks and STOREKEEPER_WEBHOOK_URL: which would win? Refused.
        let both = try bed.run(extra: ["STOREKEEPER_WEBHOOK_URL": bed.receiver.url("/x"), "STOREKEEPER_WEBHOOK_SECRET": WebhookTestbed.secret])
        #expect(both.exitCode == 78, "\(both.answer)")
    }
}
