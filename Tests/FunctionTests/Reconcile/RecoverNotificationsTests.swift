import Foundation
import Glibc
import StorekeeperCore
import Testing
import TestSupport

/// `recover-notifications` as an operator runs it after an outage: the built binary reads the
/// fake's Get Notification History and feeds it through the webhook's own inbox.
@Suite("recover-notifications against the fake App Store", .serialized)
struct RecoverNotificationsTests {
    static let now = E2E.nowMilliseconds
    static let hour = AppleWorld.hour
    static let day = AppleWorld.day
    static let windowStart = now - 2 * day
    static let original = "8000000001"

    static func uuid(_ index: Int) -> String { NotificationSpec.uuid(0x0ec0, index) }

    /// Six notifications Apple sent during the outage (three pages of two):
    /// two that did arrive (SUCCESS), three that did not, one whose signature is broken.
    static var notifications: [[String: Any]] { [
        note(1, "SUBSCRIBED", "INITIAL_BUY", at: windowStart + hour, attempts: ["SUCCESS"]),
        note(2, "DID_CHANGE_RENEWAL_PREF", "UPGRADE", at: windowStart + 2 * hour, attempts: ["SUCCESS"]),
        note(3, "DID_RENEW", nil, at: windowStart + 3 * hour, attempts: ["TIMED_OUT", "SUCCESS"]),
        note(4, "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", at: windowStart + 4 * hour, attempts: ["SSL_ISSUE", "SSL_ISSUE"]),
        note(5, "DID_RENEW", nil, at: windowStart + 5 * hour, attempts: ["UNSUCCESSFUL_HTTP_RESPONSE_CODE"]),
        note(6, "DID_RENEW", nil, at: windowStart + 6 * hour, attempts: ["SUCCESS"], tamper: true),
    ] }

    static func note(_ index: Int, _ type: String, _ subtype: String?, at date: Int64, attempts: [String], tamper: Bool = false) -> [String: Any] {
        var note: [String: Any] = [
            "notificationType": type, "notificationUUID": uuid(index), "transactionId": original, "signedDate": date,
            "sendAttempts": attempts.enumerated().map { ["attemptDate": date + Int64($0.offset) * 60_000, "sendAttemptResult": $0.element] },
        ]
        if let subtype { note["subtype"] = subtype }
        if tamper { note["tamper"] = true }
        return note
    }

    static func world(_ backend: Backend = .sqlite) throws -> AppleWorld {
        try AppleWorld(backend, customers: [
            AppleWorld.customer([AppleWorld.period(original, purchase: windowStart, expires: windowStart + 30 * day)]),
        ], notifications: notifications, pageSize: 2, extra: ["APPSTORE_API_TIMEOUT_SECONDS": "1"])
    }

    /// The two notifications that did arrive before the outage, delivered to the webhook with
    /// the same notificationUUIDs as in Apple's history, and applied by the worker.
    static func deliverFirstTwo(_ world: AppleWorld) throws {
        let specs = (1...2).map { index in
            let date = windowStart + Int64(index) * hour
            return NotificationSpec(
                uuid: uuid(index), type: index == 1 ? "SUBSCRIBED" : "DID_CHANGE_RENEWAL_PREF", subtype: index == 1 ? "INITIAL_BUY" : "UPGRADE",
                signedDate: date, environment: "Production",
                transaction: JWSTransactionDecodedPayload(
                    transactionId: original, originalTransactionId: original, bundleId: FakeAppStore.bundleId,
                    productId: AppleWorld.productId, subscriptionGroupIdentifier: "21000001", purchaseDate: windowStart,
                    originalPurchaseDate: windowStart, expiresDate: windowStart + 30 * day, quantity: 1,
                    rawType: "Auto-Renewable Subscription", rawInAppOwnershipType: "PURCHASED", signedDate: date,
                    rawEnvironment: "Production"))
        }
        let received = try Binaries.receive(try Binaries.sign(specs), environment: world.environment)
        #expect(received.answers == ["accepted", "accepted"], "\(received)")
        let run = try Binaries.process(environment: world.environment)
        #expect(run.exitCode == 0 && run.report?.remaining == 0, "\(run)")
    }

    var window: [String: Any] { ["startDate": Self.windowStart, "endDate": Self.now] }

    @Test("a window with duplicates queues only the missing ones, explains the deliveries, counts the invalid", arguments: Backend.allCases)
    func onlyTheMissingAreQueued(_ backend: Backend) throws {
        guard backend == .sqlite || AppleWorld.redisAvailable else { return }
        let world = try Self.world(backend)
        try Self.deliverFirstTwo(world)
        #expect(try world.store.pendingJobs() == 0)

        let run = try world.run("recover-notifications", window)
        #expect(run.exitCode == 0, "\(run)")
        let report = run.report
        #expect(report["pages"] as? Int == 3)
        #expect(report["fetched"] as? Int == 6)
        #expect(report["alreadyKnown"] as? Int == 2)
        #expect(report["queued"] as? Int == 3)
        #expect(report["invalid"] as? [String: Int] == ["VERIFICATION_FAILURE": 1], "\(run)")
        #expect(report["firstSendAttemptResults"] as? [String: Int] == [
            "SUCCESS": 3, "TIMED_OUT": 1, "SSL_ISSUE": 1, "UNSUCCESSFUL_HTTP_RESPONSE_CODE": 1,
        ])
        let explanations = try #require(run.json["explanations"] as? [String: String])
        #expect(Set(explanations.keys) == ["SUCCESS", "TIMED_OUT", "SSL_ISSUE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE"])
        #expect(explanations.values.allSatisfy { !$0.isEmpty && !$0.contains("\n") })
        #expect(explanations["SSL_ISSUE"] != explanations["TIMED_OUT"])
        #expect(try world.store.pendingJobs() == 3)
        for index in 3...5 { #expect(try world.store.hasNotification(Self.uuid(index))) }
        #expect(try !world.store.hasNotification(Self.uuid(6)))

        // A replay of the same window changes nothing.
        let again = try world.run("recover-notifications", window)
        #expect(again.exitCode == 0, "\(again)")
        #expect(again.report["queued"] as? Int == 0)
        #expect(again.report["alreadyKnown"] as? Int == 5)
        #expect(again.report["resumed"] as? Bool == false)
        #expect(try world.store.pendingJobs() == 3)

        // The worker applies what was missing: the subscription is renewed.
        let work = try Binaries.process(environment: world.environment)
        #expect(work.exitCode == 0 && work.report?.remaining == 0, "\(work)")
    }

    @Test("Apple failing on page 2 is exit 75; the next run resumes at page 2 by its pagination token")
    func resumesByPaginationToken() throws {
        let world = try Self.world()
        try Self.deliverFirstTwo(world)
        try world.fake.queueFaults([["kind": "pass"]] + Array(repeating: ["kind": "status", "status": 503], count: 40))

        let failed = try world.run("recover-notifications", window)
        #expect(failed.exitCode == 75, "\(failed)")
        #expect((failed.json["error"] as? [String: Any])?["retryable"] as? Bool == true)
        #expect(failed.report["pages"] as? Int == 1)
        #expect(failed.report["alreadyKnown"] as? Int == 2)
        #expect(failed.report["queued"] as? Int == 0)
        #expect(failed.report["stoppedBy"] is String)

        try world.fake.clearFaults()
        try world.fake.clearLog()
        let resumed = try world.run("recover-notifications", window)
        #expect(resumed.exitCode == 0, "\(resumed)")
        #expect(resumed.report["resumed"] as? Bool == true)
        #expect(resumed.report["pages"] as? Int == 2)
        #expect(resumed.report["fetched"] as? Int == 4)
        #expect(resumed.report["queued"] as? Int == 3)
        #expect(resumed.report["alreadyKnown"] as? Int == 0)
        let first = try #require(try world.fake.requests().first)
        #expect((first["query"] as? [String: [String]])?["paginationToken"]?.isEmpty == false, "\(first)")
        #expect(try world.store.pendingJobs() == 3)
    }

    @Test("a question without endDate (until now) resumes as it was first asked; an expired page starts again from page 1")
    func openEndedQuestionsResumeAndExpiredPagesRestart() throws {
        let world = try Self.world()
        try Self.deliverFirstTwo(world)
        let untilNow: [String: Any] = ["startDate": Self.windowStart]
        try world.fake.queueFaults([["kind": "pass"]] + Array(repeating: ["kind": "status", "status": 503], count: 40))
        let failed = try world.run("recover-notifications", untilNow)
        #expect(failed.exitCode == 75, "\(failed)")
        try world.fake.clearFaults()
        try world.fake.clearLog()

        let resumed = try world.run("recover-notifications", untilNow)
        #expect(resumed.exitCode == 0, "\(resumed)")
        #expect(resumed.report["resumed"] as? Bool == true, "later, 'until now' is still the same question")
        #expect(resumed.report["queued"] as? Int == 3)
        let first = try #require(try world.fake.requests().first)
        #expect((first["query"] as? [String: [String]])?["paginationToken"]?.isEmpty == false, "\(first)")

        // Stopped again at page 2; by the next run Apple no longer honours the saved page.
        try world.fake.queueFaults([["kind": "pass"]] + Array(repeating: ["kind": "status", "status": 503], count: 40))
        #expect(try world.run("recover-notifications", window).exitCode == 75)
        try world.fake.clearFaults()
        try world.fake.queueFaults([["kind": "status", "status": 400, "errorCode": 4000017]])
        let restarted = try world.run("recover-notifications", window)
        #expect(restarted.exitCode == 0, "\(restarted)")
        #expect(restarted.report["restartedFromFirstPage"] as? Bool == true)
        #expect(restarted.report["queued"] as? Int == 0, "everything came back as already known")
        #expect(try world.run("recover-notifications", window).report["resumed"] as? Bool == false, "a finished walk leaves no cursor")
    }

    @Test("a run killed while reading page 2 resumes there; nothing is queued twice")
    func aKilledRunResumesAtItsPage() throws {
        let world = try Self.world()
        try world.fake.queueFaults([["kind": "pass"], ["kind": "hang", "seconds": 20]])
        let killed = try world.spawn("recover-notifications", window, extra: ["APPSTORE_API_TIMEOUT_SECONDS": "60"])
        let deadline = Date().addingTimeInterval(30)
        while try world.fake.requests().count < 2, Date() < deadline, killed.process.poll() == nil {
            usleep(20_000)
        }
        killed.process.send(SIGKILL)
        #expect(killed.process.wait(seconds: 10) == .signaled(SIGKILL))
        #expect(try world.store.pendingJobs() == 2, "page 1 was queued before the kill")

        try world.fake.clearLog()
        let resumed = try world.run("recover-notifications", window)
        #expect(resumed.exitCode == 0, "\(resumed)")
        #expect(resumed.report["resumed"] as? Bool == true)
        #expect(resumed.report["pages"] as? Int == 2)
        #expect(resumed.report["queued"] as? Int == 3)
        #expect(resumed.report["invalid"] as? [String: Int] == ["VERIFICATION_FAILURE": 1])
        #expect(try world.store.pendingJobs() == 5)
        let first = try #require(try world.fake.requests().first)
        #expect((first["query"] as? [String: [String]])?["paginationToken"]?.isEmpty == false, "\(first)")
    }

    @Test("filters reach Apple as given; a different question does not resume another's page")
    func filtersAndSeparateCursors() throws {
        let world = try Self.world()
        try world.fake.queueFaults([["kind": "pass"]] + Array(repeating: ["kind": "status", "status": 503], count: 40))
        #expect(try world.run("recover-notifications", window).exitCode == 75)
        try world.fake.clearFaults()
        try world.fake.clearLog()

        let start = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(Self.windowStart) / 1000))
        let renewals = try world.run("recover-notifications", ["startDate": start, "endDate": Self.now, "notificationType": "DID_RENEW"])
        #expect(renewals.exitCode == 0, "\(renewals)")
        #expect(renewals.report["resumed"] as? Bool == false)
        #expect(renewals.report["fetched"] as? Int == 3)
        #expect(renewals.report["queued"] as? Int == 2)
        let body = try #require(try world.fake.requests().first?["body"] as? [String: Any])
        #expect(body["notificationType"] as? String == "DID_RENEW")
        #expect(body["startDate"] as? Int64 == Self.windowStart / 1000 * 1000)
        #expect(body["endDate"] as? Int64 == Self.now)

        // The unfiltered question still resumes where it stopped.
        let rest = try world.run("recover-notifications", window)
        #expect(rest.exitCode == 0, "\(rest)")
        #expect(rest.report["resumed"] as? Bool == true)
        #expect(rest.report["queued"] as? Int == 1)
        #expect(rest.report["alreadyKnown"] as? Int == 2)
    }

    @Test("Apple refusing the API key is exit 78")
    func aRefusedKeyIsAConfigurationError() throws {
        let world = try Self.world()
        let run = try world.run("recover-notifications", window, extra: ["APPSTORE_KEY_ID": "WRONGKEY99"])
        #expect(run.exitCode == 78, "\(run)")
        #expect(run.stdout.contains("APPSTORE_KEY_ID"))
        #expect(try world.store.pendingJobs() == 0)
    }
}
