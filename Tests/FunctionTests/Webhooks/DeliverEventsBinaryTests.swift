import Foundation
import StorekeeperCore
import Testing
import TestSupport

/// deliver-events and replay-events as built binaries, against a real receiver on loopback
/// that verifies every delivery with the `standardwebhooks` package from PyPI.
@Suite("deliver-events: signed, in order per customer, retried, dead-lettered, replayed", .serialized,
       .enabled(if: E2E.shouldRun, "redis-server or lighttpd is not installed (see EndToEnd)"))
struct DeliverEventsBinaryTests {
    @Test("a lifecycle is delivered in order, each signed and verified, once", arguments: Backend.allCases)
    func lifecycle(_ backend: Backend) throws {
        var bed = try WebhookTestbed(backend)
        try bed.setNow(WebhookTestbed.start)
        let types: [EventType] = [.initialPurchase, .renewal, .cancellation, .uncancellation, .billingIssue, .gracePeriod,
                                  .renewal, .refund, .refundReversed, .expiration]
        let events = try bed.record(types.map { ("user-1", $0, "Production") } + [("user-2", .initialPurchase, "Production")])
        let first = try bed.run()
        #expect(first.exitCode == 0, "\(first.answer) \(first.stderr)")
        #expect(first.answer["delivered"] as? Int == events.count)
        // http:// is allowed, and warned about as the function starts (by name and host).
        #expect(first.stderr.contains("webhook_plain_http") && first.stderr.contains("127.0.0.1:\(bed.receiver.port)"))
        let deliveries = bed.receiver.deliveries()
        #expect(deliveries.count == events.count)
        #expect(deliveries.allSatisfy { $0.verified && $0.answer == "200" }, "\(deliveries.filter { !$0.verified })")
        #expect(deliveries.map(\.id) == events.map(\.id))
        #expect(deliveries.allSatisfy { $0.timestamp == WebhookTestbed.start && $0.contentType == "application/json" })
        #expect(deliveries.first?.type == "INITIAL_PURCHASE" && deliveries.first?.customerId == "user-1")
        // Nothing new: nothing sent again.
        let second = try bed.run()
        #expect(second.exitCode == 0 && bed.receiver.deliveries().count == events.count)
        let status = try bed.status()
        #expect(status["pending"] as? Int == 0 && status["cursor"] as? Int == events.count, "\(status)")
        #expect(status["host"] as? String == "127.0.0.1:\(bed.receiver.port)")
    }

    @Test("500, then a timeout, then 200: retried on the schedule; the customer's next event waits, another customer's does not")
    func retriedInOrder() throws {
        var bed = try WebhookTestbed()
        // r-1 answers 500, then hangs past the timeout, then 200; every other event 200.
        try bed.receiver.configure("/hooks", .init(attempts: ["500", "hang"], hangSeconds: 3, ids: ["r-1"]))
        let start = WebhookTestbed.start
        try bed.setNow(start)
        try bed.record([("user-a", .initialPurchase, "Production"), ("user-a", .renewal, "Production"),
                        ("user-b", .initialPurchase, "Production")], prefix: "r")
        let first = try bed.run()
        #expect(first.exitCode == 75, "\(first.answer)")
        // r-1 failed, r-2 waits behind it (never sent), r-3 of another customer went.
        var status = try bed.status()
        #expect(status["waitingCustomers"] as? Int == 1 && status["pending"] as? Int == 2, "\(status)")
        #expect((status["failures"] as? [String: Int]) == ["500": 1], "\(status)")
        #expect(bed.receiver.deliveries().map(\.id) == ["r-1", "r-3"])

        // Not due yet (5 s ± 20 %): nothing is sent.
        try bed.setNow(start + 3)
        #expect(try bed.run().exitCode == 75)
        #expect(bed.receiver.deliveries().count == 2)

        // Due: the second attempt times out (the receiver hangs 3 s, the timeout is 1 s).
        try bed.setNow(start + 7)
        #expect(try bed.run().exitCode == 75)
        status = try bed.status()
        #expect((status["failures"] as? [String: Int]) == ["timeout": 1], "\(status)")

        // 30 s ± 20 % later: 200, and user-a's next event follows at once.
        try bed.setNow(start + 7 + 37)
        let last = try bed.run()
        #expect(last.exitCode == 0, "\(last.answer)")
        #expect(bed.firstArrivals() == ["user-a": [1, 2], "user-b": [3]])
        let attempts = bed.receiver.deliveries().filter { $0.id == "r-1" }.map(\.answer)
        #expect(attempts == ["500", "hang", "200"])
        #expect(bed.receiver.deliveries().allSatisfy { $0.verified })
        #expect(try bed.status()["pending"] as? Int == 0)
    }

    @Test("a dead endpoint is retried for three days, dead-lettered with its last answer, then replayed in order")
    func deadLetteredThenReplayed() throws {
        var bed = try WebhookTestbed()
        bed.environment["STOREKEEPER_WEBHOOK_URL"] = "http://127.0.0.1:9/hooks?token=chat-credential"
        var now = WebhookTestbed.start
        try bed.setNow(now)
        let events = try bed.record([("user-d", .initialPurchase, "Production"), ("user-d", .renewal, "Production")], prefix: "d")
        var passes = 0
        var exits: [Int32] = []
        var status = try bed.status()
        while ((status["deadLetters"] as? [String: Any])?["count"] as? Int ?? 0) < 2 && passes < 60 {
            let run = try bed.run()
            exits.append(run.exitCode)
            // The endpoint is named by name and host only: the URL's path and query are a credential.
            #expect(run.stderr.contains("127.0.0.1:9") && !run.stderr.contains("chat-credential"), "\(run.stderr)")
            passes += 1
            now += 8 * 3600
            try bed.setNow(now)
            status = try bed.status()
        }
        let dead = try #require(status["deadLetters"] as? [String: Any], "\(status)")
        #expect(dead["count"] as? Int == 2 && (dead["byAnswer"] as? [String: Int]) == ["connection refused": 2], "\(dead)")
        // A dozen or so attempts each over three days: 5 s, 30 s, 2 min, 10 min, 1 h, then 6-hourly.
        #expect(passes >= 18 && passes <= 30, "\(passes) passes")
        #expect(exits.dropLast().allSatisfy { $0 == 75 } && exits.last == 0, "\(exits)")
        let oldest = try #require(dead["oldest"] as? [[String: Any]])
        #expect(oldest.map { $0["id"] as? String } == ["d-1", "d-2"])
        #expect(status["pending"] as? Int == 0 && status["host"] as? String == "127.0.0.1:9")

        // The backend is back: replay everything to it, same ids, in order; dead letters cleared.
        bed.environment["STOREKEEPER_WEBHOOK_URL"] = bed.receiver.url("/hooks")
        let replay = try bed.run("replay-events", #"{"endpoint": "default"}"#)
        #expect(replay.exitCode == 0, "\(replay.answer) \(replay.stderr)")
        #expect(replay.answer["delivered"] as? Int == 2 && replay.answer["deadLettersCleared"] as? Int == 2, "\(replay.answer)")
        #expect(bed.receiver.deliveries().map(\.id) == events.map(\.id))
        #expect(bed.receiver.deliveries().allSatisfy { $0.verified })
        #expect(((try bed.status()["deadLetters"] as? [String: Any])?["count"] as? Int) == 0)
    }

    @Test("back-pressure: with 1,000 customers waiting on a dead endpoint, the cursor stops; the state stays bounded")
    func backPressure() throws {
        var bed = try WebhookTestbed()
        bed.environment["STOREKEEPER_WEBHOOK_URL"] = "http://127.0.0.1:9/hooks"
        try bed.setNow(WebhookTestbed.start)
        try bed.record((0..<1_010).map { (customer: "user-\($0)", type: EventType.initialPurchase, environment: "Production") },
                       prefix: "bp")
        let run = try bed.run()
        #expect(run.exitCode == 75)
        let status = try bed.status()
        #expect(status["waitingCustomers"] as? Int == 1_000 && status["cursor"] as? Int == 1_000, "\(status)")
        #expect(status["pending"] as? Int == 1_010 && (status["failures"] as? [String: Int]) == ["connection refused": 1_000])
    }

    @Test("follow: delivers what comes while it runs, stops on SIGTERM with its totals")
    func followUntilSigterm() throws {
        let bed = try WebhookTestbed()
        try bed.record([("user-f", .initialPurchase, "Production")], recordedAt: Int64(Date().timeIntervalSince1970 * 1000), prefix: "fa")
        let folder = try E2E.scratchFolder("deliver-follow")
        defer { try? FileManager.default.removeItem(at: folder) }
        let request = folder.appendingPathComponent("request.json")
        try Data(#"{"follow": true}"#.utf8).write(to: request)
        let output = folder.appendingPathComponent("answer.json")
        let process = try SpawnedProcess.spawn(FunctionBinary.binDirectory.appendingPathComponent("deliver-events").path, [],
                                               environment: bed.environment, directory: FunctionBinary.repositoryRoot.path,
                                               stdin: request.path, stdout: output.path)
        func waitFor(_ count: Int) {
            let deadline = Date().addingTimeInterval(20)
            while bed.receiver.deliveries().count < count && Date() < deadline { usleep(20_000) }
        }
        waitFor(1)
        // A later event, recorded while it sleeps, goes within about a second.
        try bed.record([("user-f", .renewal, "Production")], recordedAt: Int64(Date().timeIntervalSince1970 * 1000), prefix: "fb")
        waitFor(2)
        #expect(bed.receiver.deliveries().map(\.id) == ["fa-1", "fb-1"])
        process.send(SIGTERM)
        let ended = process.wait(seconds: 10)
        #expect(ended == .exited(0), "\(String(describing: ended))")
        let answer = try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any]
        #expect(answer?["delivered"] as? Int == 2, "\(String(describing: answer))")
    }

    @Test("another run holding the endpoint's lease: this one sends nothing to it, says busy, exits 75; replay-events waits too")
    func leaseHeldElsewhere() throws {
        let bed = try WebhookTestbed()
        try bed.record([("user-l", .initialPurchase, "Production")], recordedAt: Int64(Date().timeIntervalSince1970 * 1000), prefix: "l")
        let store = try bed.store.open()
        let lease = StoreKeys.webhookLease(endpoint: "default")
        #expect(try store.setIfAbsent(lease, Array("another run".utf8), expiresIn: .seconds(60)))
        let busy = try bed.run()
        #expect(busy.exitCode == 75 && busy.endpoints.first?["busy"] as? Bool == true && busy.answer["pending"] as? Int == 1,
                "\(busy.answer)")
        let replay = try bed.run("replay-events", #"{"endpoint": "default"}"#)
        #expect(replay.exitCode == 75 && (replay.answer["error"] as? [String: Any])?["code"] as? String == "temporarily_unavailable",
                "\(replay.answer)")
        #expect(bed.receiver.deliveries().isEmpty)
        // The other run is done: its lease goes, and the event with it.
        try store.delete(lease)
        #expect(try bed.run().exitCode == 0)
        #expect(bed.receiver.deliveries().map(\.id) == ["l-1"])
        // Its own lease is let go at the end of a pass: the next run starts at once.
        #expect(try store.get(lease) == nil)
    }

    @Test("a rotated secret: both sign; a receiver that knows only the new one verifies, one that knows neither refuses")
    func rotatedSecret() throws {
        var bed = try WebhookTestbed(secrets: ["/hooks": WebhookTestbed.newSecret, "/stranger": WebhookTestbed.strangerSecret])
        try bed.setNow(WebhookTestbed.start)
        bed.environment["STOREKEEPER_WEBHOOK_SECRET"] = "\(WebhookTestbed.secret) \(WebhookTestbed.newSecret)"
        try bed.record([("user-r", .initialPurchase, "Production")], prefix: "rot")
        #expect(try bed.run().exitCode == 0)
        let delivery = try #require(bed.receiver.deliveries().first)
        #expect(delivery.verified && delivery.signatures == 2 && delivery.answer == "200", "\(delivery)")

        // The same secrets sent to a backend that knows neither: refused (401), so retried.
        bed.environment["STOREKEEPER_WEBHOOK_URL"] = bed.receiver.url("/stranger")
        let replay = try bed.run("replay-events", #"{"endpoint": "default"}"#)
        #expect(replay.exitCode == 75 && replay.answer["failed"] as? Int == 1, "\(replay.answer)")
        #expect(bed.receiver.deliveries("/stranger").map(\.verified) == [false])
    }
}
