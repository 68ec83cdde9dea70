import Foundation
import Glibc
import StorekeeperCore
import Testing
import TestSupport

/// `reconcile` as cron runs it: the built binary against the fake App Store, on a store seeded
/// by the webhook's own path (signed notifications, receive-notification, the worker).
///
/// Serialized: several cases measure request rates, and side by side they would only measure
/// each other on a small machine.
@Suite("reconcile against the fake App Store", .serialized)
struct ReconcileTests {
    static let now = E2E.nowMilliseconds
    static let day = AppleWorld.day

    static func ids(_ prefix: String, _ count: Int) -> [String] {
        (1...count).map { prefix + String(format: "%02d", $0) }
    }

    /// A subscription Apple and the store agree on: bought two days ago, renews in 28.
    static func current(_ id: String) -> [String: Any] {
        AppleWorld.customer([AppleWorld.period(id, purchase: now - 2 * day, expires: now + 28 * day)])
    }

    // MARK: corrections

    @Test("a lost renewal, a lost refund and a lost expiry are corrected, once", arguments: Backend.allCases)
    func lostNotificationsAreCorrected(_ backend: Backend) throws {
        guard backend == .sqlite || AppleWorld.redisAvailable else { return }
        let renewed = "2000000001", refunded = "2000000002", expired = "2000000003", agreed = "2000000004"
        let world = try AppleWorld(backend, customers: [
            // Renewed yesterday; the DID_RENEW never arrived.
            AppleWorld.customer([
                AppleWorld.period(renewed, purchase: Self.now - 31 * Self.day, expires: Self.now - Self.day),
                AppleWorld.period(renewed, transactionId: "2100000001", purchase: Self.now - Self.day, expires: Self.now + 29 * Self.day),
            ]),
            // Refunded an hour ago; the REFUND never arrived.
            AppleWorld.customer([AppleWorld.period(refunded, purchase: Self.now - 2 * Self.day, expires: Self.now + 28 * Self.day,
                                                   extra: ["revocationDate": Self.now - AppleWorld.hour, "revocationReason": 0])]),
            // Turned auto-renew off and lapsed yesterday; the EXPIRED never arrived.
            AppleWorld.customer([AppleWorld.period(expired, purchase: Self.now - 31 * Self.day, expires: Self.now - Self.day)],
                                renewal: ["originalTransactionId": expired, "productId": AppleWorld.productId,
                                          "autoRenewProductId": AppleWorld.productId, "autoRenewStatus": 0, "expirationIntent": 1]),
            Self.current(agreed),
        ])
        try world.seed([
            (renewed, Self.now - 31 * Self.day, Self.now - Self.day),
            (refunded, Self.now - 2 * Self.day, Self.now + 28 * Self.day),
            (expired, Self.now - 31 * Self.day, Self.now - Self.day),
            (agreed, Self.now - 2 * Self.day, Self.now + 28 * Self.day),
        ])
        #expect(try world.entitlement(refunded)["status"] as? String == "active")
        #expect(try world.entitlement(renewed)["confirmedByApple"] == nil)

        // The daily run, default selection: all four need attention (three active as last
        // written, one lapsed with nothing after it).
        let first = try world.reconcile()
        #expect(first.exitCode == 0, "\(first)")
        #expect(first.report["total"] as? Int == 4)
        #expect(first.report["asked"] as? Int == 4)
        #expect(first.report["corrected"] as? [String: Int] == ["expired→active": 1, "active→refunded": 1, "active→expired": 1], "\(first)")
        #expect(first.report["unchanged"] as? Int == 1)
        #expect(first.report["failed"] as? [String: Int] == [:])
        #expect(first.json["correctedTotal"] as? Int == 3)
        #expect(first.stderr.components(separatedBy: "entitlement_corrected").count - 1 == 3)
        #expect(try world.askedIds().sorted() == [renewed, refunded, expired, agreed])

        // What get-entitlements answers now, and what Apple confirmed.
        for (id, status, appleStatus) in [(renewed, "active", 1), (refunded, "refunded", 5), (expired, "expired", 2), (agreed, "active", 1)] {
            let entitlement = try world.entitlement(id)
            #expect(entitlement["status"] as? String == status, "\(id): \(entitlement)")
            let confirmed = try #require(entitlement["confirmedByApple"] as? [String: Any], "\(id): \(entitlement)")
            #expect(confirmed["appleStatus"] as? Int == appleStatus)
            #expect(confirmed["status"] as? String == status)
            #expect((confirmed["askedAt"] as? Int64 ?? 0) >= Self.now)
        }
        #expect(try world.entitlement(renewed).field("lastEvent", "source") as? String == "reconciliation")
        #expect(try world.entitlement(renewed)["latestTransactionId"] as? String == "2100000001")

        // Asked again (everyone this time): nothing left to correct.
        try world.fake.clearLog()
        let second = try world.reconcile(["selection": "all"])
        #expect(second.exitCode == 0, "\(second)")
        #expect(second.report["asked"] as? Int == 4)
        #expect(second.report["unchanged"] as? Int == 4)
        #expect(second.report["corrected"] as? [String: Int] == [:], "\(second)")
        #expect(second.report["resumedAfter"] == nil)
        #expect(try world.askedIds().count == 4)
    }

    // MARK: the shared rate limit

    @Test("two concurrent runs share one rate limit, both finish, everyone is asked", arguments: Backend.allCases)
    func twoProcessesShareTheRateLimit(_ backend: Backend) throws {
        guard backend == .sqlite || AppleWorld.redisAvailable else { return }
        let ids = Self.ids("30000000", 24)
        let world = try AppleWorld(backend, customers: ids.map(Self.current))
        let rate = 5.0, burst = 5.0
        let request: [String: Any] = ["originalTransactionIds": ids]
        let runs = try (0..<2).map { _ in try world.spawnReconcile(request, extra: ["RECONCILE_REQUESTS_PER_SECOND": "5"]) }
        var reports: [[String: Any]] = []
        for run in runs {
            let (termination, timedOut) = run.process.waitOrKill(limit: 90)
            #expect(!timedOut)
            #expect(termination == .exited(0))
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: run.stdout)) as? [String: Any]
            reports.append(json?["report"] as? [String: Any] ?? [:])
        }

        let log = try world.fake.requests()
        let times = log.compactMap { $0["time"] as? Double }.sorted()
        #expect(times.count == log.count)
        // Over every window [t_i, t_j], the requests in it stay within rate × window + burst
        // (one more for the clock reads of two processes and loopback latency).
        var worst = 0.0
        for i in times.indices {
            for j in i..<times.count {
                let count = Double(j - i + 1)
                let allowed = rate * (times[j] - times[i]) + burst + 1
                worst = max(worst, count - allowed)
            }
        }
        #expect(worst <= 0, "the combined rate exceeded the limit by \(worst) requests")
        let asked = try world.askedIds()
        #expect(Set(asked) == Set(ids), "every subscriber was asked")
        #expect(reports.map { $0["asked"] as? Int ?? 0 }.reduce(0, +) == asked.count)
        #expect(reports.allSatisfy { ($0["failed"] as? [String: Int]) == [:] })
        // Two runs of the same selection share the cursor but take no lock: each walks the
        // list, so a subscriber is asked at most once per process. Harmless (the same answer
        // applied twice changes nothing, and the shared bucket keeps the combined rate), and
        // cron with a budget shorter than its interval never overlaps two runs.
        let perId = Dictionary(grouping: asked, by: { $0 }).mapValues(\.count)
        #expect(perId.values.allSatisfy { $0 <= 2 }, "\(perId)")
        print("reconcile, two concurrent runs of one selection (\(backend)): \(asked.count) requests for \(ids.count) subscribers over \(String(format: "%.2f", (times.last ?? 0) - (times.first ?? 0))) s, worst window margin \(worst)")
        if let first = times.first, let last = times.last {
            // n requests at 5 per second after a burst of 5 take at least (n - 5 - 1) / 5 seconds.
            #expect(last - first >= (Double(asked.count) - burst - 1) / rate)
        }
    }

    // MARK: resuming

    @Test("a run killed part-way resumes at its cursor and asks nobody twice but the one in flight")
    func aKilledRunResumesAtTheCursor() throws {
        let ids = Self.ids("40000000", 20)
        let world = try AppleWorld(customers: ids.map(Self.current))
        let request: [String: Any] = ["originalTransactionIds": ids]
        let killed = try world.spawnReconcile(request, extra: ["RECONCILE_REQUESTS_PER_SECOND": "4"])
        let deadline = Date().addingTimeInterval(60)
        while try world.askedIds().count < 8, Date() < deadline, killed.process.poll() == nil {
            usleep(20_000)
        }
        killed.process.send(SIGKILL)
        #expect(killed.process.wait(seconds: 10) == .signaled(SIGKILL))
        let beforeKill = try world.askedIds()
        #expect(beforeKill.count >= 8 && beforeKill.count < ids.count, "\(beforeKill.count) asked before the kill")

        let second = try world.reconcile(request, extra: ["RECONCILE_REQUESTS_PER_SECOND": "20"])
        #expect(second.exitCode == 0, "\(second)")
        let resumedAfter = try #require(second.report["resumedAfter"] as? String, "\(second)")
        #expect(ids.contains(resumedAfter))
        let left = ids.filter { $0 > resumedAfter }
        #expect(second.report["total"] as? Int == left.count)
        #expect(second.report["asked"] as? Int == left.count)

        let asked = try world.askedIds()
        #expect(Set(asked) == Set(ids), "everyone was asked in the end")
        #expect(Array(asked[beforeKill.count...]) == left, "the second run asks exactly those after the cursor, in order")
        let twice = Dictionary(grouping: asked, by: { $0 }).filter { $0.value.count > 1 }.keys
        #expect(twice.count <= 1, "asked twice: \(twice.sorted())")
        #expect(asked.count <= ids.count + 1)
        // The finished walk dropped its cursor: the next run starts at the beginning.
        let third = try world.reconcile(request, extra: ["RECONCILE_REQUESTS_PER_SECOND": "20"])
        #expect(third.report["resumedAfter"] == nil)
        #expect(third.report["asked"] as? Int == ids.count)
    }

    // MARK: Apple's failures

    @Test("429 with Retry-After holds back every process; 5xx are retried; nothing fails")
    func rateLimitsAndServerErrorsAreSurvived() throws {
        let ids = Self.ids("50000000", 12)
        let world = try AppleWorld(customers: ids.map(Self.current))
        try world.fake.queueFaults([
            ["kind": "status", "status": 429, "retryAfter": 2],
            ["kind": "status", "status": 503],
            ["kind": "status", "status": 500],
        ])
        let halves = [Array(ids.prefix(6)), Array(ids.suffix(6))]
        let runs = try halves.map { try world.spawnReconcile(["originalTransactionIds": $0], extra: ["RECONCILE_REQUESTS_PER_SECOND": "50"]) }
        var reports: [[String: Any]] = []
        for run in runs {
            let (termination, timedOut) = run.process.waitOrKill(limit: 90)
            #expect(!timedOut)
            #expect(termination == .exited(0))
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: run.stdout)) as? [String: Any]
            reports.append(json?["report"] as? [String: Any] ?? [:])
        }
        #expect(reports.allSatisfy { ($0["failed"] as? [String: Int]) == [:] }, "\(reports)")
        #expect(reports.map { $0["asked"] as? Int ?? 0 }.reduce(0, +) == ids.count)
        let unchanged: Int = reports.map { $0["unchanged"] as? Int ?? 0 }.reduce(0, +)
        let corrected: Int = reports.map { ($0["corrected"] as? [String: Int] ?? [:]).values.reduce(0, +) }.reduce(0, +)
        #expect(unchanged + corrected == ids.count, "\(reports)")

        let log = try world.fake.requests()
        let statuses = log.compactMap { $0["status"] as? Int }
        #expect(statuses.filter { $0 == 429 }.count == 1)
        #expect(statuses.filter { $0 >= 500 }.count == 2)
        #expect(statuses.filter { $0 == 200 }.count == ids.count)
        // After the 429, neither process sent anything until Retry-After had passed (requests
        // already on their way when it was written excepted: a fraction of a second).
        let limited = try #require(log.first { $0["status"] as? Int == 429 }?["time"] as? Double)
        let early = log.compactMap { $0["time"] as? Double }.filter { $0 > limited + 0.3 && $0 < limited + 1.9 }
        #expect(early.isEmpty, "\(early.count) requests inside Apple's Retry-After")
        #expect(reports.map { $0["rateLimitedWaits"] as? Int ?? 0 }.reduce(0, +) >= 1, "\(reports)")
    }

    @Test("Apple down for everyone: exit 75, apple_unavailable, nothing changed, the next run resumes at the first failure")
    func appleDownStopsTheRunAndTheNextResumes() throws {
        let ids = Self.ids("60000000", 8)
        // Apple refunded all of them; the store still thinks they are active.
        let world = try AppleWorld(customers: ids.map { id in
            AppleWorld.customer([AppleWorld.period(id, purchase: Self.now - 2 * Self.day, expires: Self.now + 28 * Self.day,
                                                   extra: ["revocationDate": Self.now - AppleWorld.hour, "revocationReason": 0])])
        }, extra: ["APPSTORE_API_TIMEOUT_SECONDS": "1"])
        try world.seed(ids.map { ($0, Self.now - 2 * Self.day, Self.now + 28 * Self.day) })
        try world.fake.queueFaults([["kind": "pass"], ["kind": "pass"]] + Array(repeating: ["kind": "status", "status": 503], count: 80))

        let down = try world.reconcile()
        #expect(down.exitCode == 75, "\(down)")
        #expect(down.report["stoppedBy"] as? String == "apple_unavailable")
        #expect(down.report["asked"] as? Int == 2 + 5)
        #expect(down.report["corrected"] as? [String: Int] == ["active→refunded": 2])
        #expect((down.report["failed"] as? [String: Int])?.values.reduce(0, +) == 5, "\(down)")
        for id in ids.prefix(2) {
            let entitlement = try world.entitlement(id)
            #expect(entitlement["status"] as? String == "refunded")
            // What Apple said before it went down is still what get-entitlements relies on.
            #expect(entitlement.field("confirmedByApple", "appleStatus") as? Int == 5)
        }
        for id in ids.dropFirst(2) {
            let entitlement = try world.entitlement(id)
            #expect(entitlement["status"] as? String == "active", "nothing changed for \(id)")
            #expect(entitlement["confirmedByApple"] == nil)
            #expect(entitlement.field("lastEvent", "source") as? String == "notification")
        }

        try world.fake.clearFaults()
        try world.fake.clearLog()
        let back = try world.reconcile()
        #expect(back.exitCode == 0, "\(back)")
        #expect(back.report["resumedAfter"] as? String == ids[1])
        #expect(back.report["corrected"] as? [String: Int] == ["active→refunded": 6])
        #expect(try world.askedIds() == Array(ids.dropFirst(2)))
    }

    @Test("a subscriber left unanswered holds the cursor: answers after it do not move it past him")
    func anUnansweredSubscriberHoldsTheCursor() throws {
        let ids = Self.ids("61000000", 9)
        let world = try AppleWorld(customers: ids.map { id in
            AppleWorld.customer([AppleWorld.period(id, purchase: Self.now - 2 * Self.day, expires: Self.now + 28 * Self.day,
                                                   extra: ["revocationDate": Self.now - AppleWorld.hour, "revocationReason": 0])])
        }, extra: ["APPSTORE_API_TIMEOUT_SECONDS": "1"])
        try world.seed(ids.map { ($0, Self.now - 2 * Self.day, Self.now + 28 * Self.day) })
        // The second subscriber gets no answer, the next two do, then Apple goes down.
        let down = [ids[1]] + Array(ids.suffix(5))
        try world.fake.queueFaults(down.flatMap { id in
            Array(repeating: ["kind": "status", "status": 503, "path": "/inApps/v1/subscriptions/\(id)"] as [String: Any], count: 20)
        })
        let first = try world.reconcile()
        #expect(first.exitCode == 75, "\(first)")
        #expect(first.report["corrected"] as? [String: Int] == ["active→refunded": 3])

        try world.fake.clearFaults()
        try world.fake.clearLog()
        let back = try world.reconcile()
        #expect(back.exitCode == 0, "\(back)")
        #expect(back.report["resumedAfter"] as? String == ids[0], "the cursor stayed before the unanswered one")
        // The two answered after him are refunded now: no longer in need of attention.
        #expect(try world.askedIds() == down)
    }

    @Test("out of time: exit 0, outOfTime, the next run resumes and nobody is asked twice")
    func outOfTimeResumes() throws {
        let ids = Self.ids("65000000", 12)
        let world = try AppleWorld(customers: ids.map(Self.current))
        let request: [String: Any] = ["originalTransactionIds": ids, "budgetSeconds": 1]
        let short = try world.reconcile(request, extra: ["RECONCILE_REQUESTS_PER_SECOND": "4"])
        #expect(short.exitCode == 0, "\(short)")
        #expect(short.report["outOfTime"] as? Bool == true, "\(short)")
        #expect(short.report["stoppedBy"] == nil)
        let first = try world.askedIds()
        #expect(first.count >= 4 && first.count < ids.count, "\(first)")

        let rest = try world.reconcile(["originalTransactionIds": ids], extra: ["RECONCILE_REQUESTS_PER_SECOND": "50"])
        #expect(rest.exitCode == 0, "\(rest)")
        #expect(rest.report["resumedAfter"] as? String == first.last)
        #expect(rest.report["outOfTime"] as? Bool == false)
        #expect(try world.askedIds() == ids, "each asked once, in order")
    }

    @Test("an answer that fails verification is applied to nothing and counts as failed, not unchanged")
    func anUnverifiableAnswerChangesNothing() throws {
        let id = "7500000001"
        let world = try AppleWorld(customers: [
            AppleWorld.customer([AppleWorld.period(id, purchase: Self.now - 2 * Self.day, expires: Self.now + 28 * Self.day,
                                                   extra: ["revocationDate": Self.now - AppleWorld.hour, "revocationReason": 0])]),
        ])
        // No seeding here: nothing in the store for this subscription, so nothing to correct.
        let otherRoot = E2E.pki.appendingPathComponent("other-root.pem").path
        let run = try world.reconcile(["originalTransactionIds": [id]], extra: ["APPSTORE_ROOT_CERTS": otherRoot])
        #expect(run.exitCode == 0, "\(run)")
        #expect(run.report["asked"] as? Int == 1)
        #expect(run.report["failed"] as? [String: Int] == ["INVALID_CERTIFICATE": 1], "\(run)")
        #expect(run.report["unchanged"] as? Int == 0, "\(run)")
        #expect(run.report["corrected"] as? [String: Int] == [:])
        #expect(try world.store.record(id) == nil, "nothing was applied")
        #expect(try world.store.record(id)?.confirmedByApple == nil, "nothing was kept as Apple's answer")
    }

    @Test("Apple refusing the API key stops the run: exit 78, nothing asked twice")
    func aRefusedKeyIsAConfigurationError() throws {
        let ids = Self.ids("70000000", 3)
        let world = try AppleWorld(customers: ids.map(Self.current))
        let run = try world.reconcile(["originalTransactionIds": ids], extra: ["APPSTORE_KEY_ID": "WRONGKEY99"])
        #expect(run.exitCode == 78, "\(run)")
        #expect(run.stdoutText.contains("APPSTORE_KEY_ID"))
        #expect(try world.fake.requests().map { $0["auth"] as? String } == ["unknown kid"])
    }
}

extension AppleWorld.Run {
    var stdoutText: String { stdout }
}
