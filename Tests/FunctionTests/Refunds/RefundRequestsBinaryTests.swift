import Foundation
import Glibc
import Testing
import TestSupport

/// CONSUMPTION_REQUEST through the built binaries: receive-notification, set-consumption,
/// process-notifications answering the fake App Store (which checks the PUT, its token and its
/// body as Apple does), refund-requests.
@Suite("Refund requests through the binaries and the fake App Store", .serialized)
struct RefundRequestsBinaryTests {
    typealias D = RefundDeployment
    static let start = D.asked / 1000 + 60

    @Test func aConsentedRequestIsAnsweredWithTheExactBodyThenClosedByApplesDecision() throws {
        let deployment = try D()
        try deployment.deliver("CONSUMPTION_REQUEST", uuid: "11111111-0000-4000-8000-000000000001", transactionId: "3000000001")
        try deployment.deliver("CONSUMPTION_REQUEST", uuid: "11111111-0000-4000-8000-000000000002", transactionId: "3000000010",
                               productId: "com.example.pro.monthly", productType: "Auto-Renewable Subscription", reason: "OTHER")
        let consent = try deployment.run("set-consumption", ["appAccountToken": D.token.uppercased(), "customerConsented": true,
                                                             "reason": "accepted the terms in the app"])
        #expect(consent.exitCode == 0 && consent.answer["appAccountToken"] as? String == D.token, "\(consent.answer)")
        for transaction in ["3000000001", "3000000010"] {
            let recorded = try deployment.run("set-consumption", ["transactionId": transaction, "deliveryStatus": "DELIVERED",
                                                                  "consumptionPercentage": 0])
            #expect(recorded.exitCode == 0, "\(recorded.answer)")
        }

        let work = try deployment.work(now: Self.start)
        #expect(work["recorded"] == 2 && work["answered"] == 2, "\(work)")
        let puts = try deployment.consumptionPuts()
        #expect(puts.count == 2 && puts.allSatisfy { $0["method"] as? String == "PUT" && $0["auth"] as? String == "ok"
            && $0["environment"] as? String == "Sandbox" && $0["status"] as? Int == 202 }, "\(puts)")
        let bodies = Dictionary(uniqueKeysWithValues: puts.map { (($0["path"] as? String ?? "").split(separator: "/").last.map(String.init) ?? "",
                                                                   $0["body"] as? NSDictionary ?? [:]) })
        // Three days of use, the policy declines after two; 0 consumed is written as 0.
        #expect(bodies["3000000001"] == ["customerConsented": true, "deliveryStatus": "DELIVERED", "sampleContentProvided": true,
                                         "consumptionPercentage": 0, "refundPreference": "DECLINE"] as NSDictionary)
        // An auto-renewable subscription: no consumptionPercentage at all, whatever was recorded.
        #expect(bodies["3000000010"] == ["customerConsented": true, "deliveryStatus": "DELIVERED", "sampleContentProvided": false,
                                         "refundPreference": "GRANT_PRORATED"] as NSDictionary)
        _ = try deployment.work(now: Self.start + 600)
        #expect(try deployment.consumptionPuts().count == 2, "nothing is sent twice")
        // The notification is still an event of its own, as before (main records none for a
        // consumable's: EntitlementRepository keeps the purchase and returns before its standalone event).
        let events = try deployment.run("list-events", ["types": ["CONSUMPTION_REQUEST"]]).answer["events"] as? [[String: Any]]
        #expect(events?.compactMap { $0["transactionId"] as? String }.contains("3000000010") == true)

        try deployment.deliver("REFUND_DECLINED", uuid: "11111111-0000-4000-8000-000000000003", transactionId: "3000000001",
                               signedDate: D.asked + 3_600_000)
        try deployment.deliver("REFUND", uuid: "11111111-0000-4000-8000-000000000004", transactionId: "3000000010",
                               productId: "com.example.pro.monthly", productType: "Auto-Renewable Subscription",
                               signedDate: D.asked + 3_600_000)
        #expect(try deployment.work(now: Self.start + 3_700)["closed"] == 2)
        let report = try deployment.requests()
        let closed = try #require(report["closed"] as? [[String: Any]])
        #expect(Set(closed.compactMap { $0["outcome"] as? String }) == ["declined", "refunded"])
        #expect(closed.allSatisfy { $0["sent"] != nil && $0["deadline"] as? Int64 == D.asked + 43_200_000 })
        let byReason = try #require(report["byReason"] as? [String: [String: Any]])
        #expect(byReason["UNINTENDED_PURCHASE"]?["refundRate"] as? Double == 0.0)
        #expect(byReason["OTHER"]?["refundRate"] as? Double == 1.0)
    }

    @Test func withoutConsentOrForAnAssignedSeatNothingIsSentAndTheReportSaysWhy() throws {
        let deployment = try D()
        try deployment.deliver("CONSUMPTION_REQUEST", uuid: "22222222-0000-4000-8000-000000000001", transactionId: "3000000001")
        try deployment.deliver("CONSUMPTION_REQUEST", uuid: "22222222-0000-4000-8000-000000000002", transactionId: "3000000002",
                               ownership: "ASSIGNED")
        let work = try deployment.work(now: Self.start)
        #expect(work["waiting"] == 1 && work["notAnswered"] == 1, "\(work)")
        var report = try deployment.requests()
        #expect((report["open"] as? [[String: Any]])?.first?["waitingFor"] as? String == "no_consent")
        #expect((report["notAnswered"] as? [[String: Any]])?.first?["notAnsweredReason"] as? String == "assigned_ownership")
        // Twelve hours without consent: not answered, for good.
        _ = try deployment.work(now: D.asked / 1000 + 43_200)
        report = try deployment.requests(now: D.asked / 1000 + 43_200)
        #expect((report["notAnswered"] as? [[String: Any]])?.compactMap { $0["notAnsweredReason"] as? String }.sorted()
                == ["assigned_ownership", "no_consent"])
        #expect(try deployment.consumptionPuts().isEmpty)
    }

    @Test func withoutAnAPIKeyTheWorkerRecordsReportsAndWarns() throws {
        let deployment = try D()
        try deployment.deliver("CONSUMPTION_REQUEST", uuid: "33333333-0000-4000-8000-000000000001", transactionId: "3000000001")
        _ = try deployment.run("set-consumption", ["appAccountToken": D.token, "customerConsented": true])
        let run = try deployment.run("process-notifications", [:], now: Self.start, credentials: false)
        #expect((run.answer["refundRequests"] as? [String: Int])?["noCredentials"] == 1, "\(run.answer)")
        #expect(run.stderr.contains("\"event\":\"refund_requests_unanswered\""))
        #expect(try deployment.consumptionPuts().isEmpty)
        // Once the key is configured, the next run before the deadline answers.
        #expect(try deployment.work(now: Self.start + 301)["answered"] == 1)
    }

    @Test func apple5xxAnd429AreRetriedAtLaterRunsAndA4xxIsFinal() throws {
        let deployment = try D()
        try deployment.deliver("CONSUMPTION_REQUEST", uuid: "44444444-0000-4000-8000-000000000001", transactionId: "3000000001")
        try deployment.deliver("CONSUMPTION_REQUEST", uuid: "44444444-0000-4000-8000-000000000002", transactionId: "3000000099")
        _ = try deployment.run("set-consumption", ["appAccountToken": D.token, "customerConsented": true])
        let path = "/inApps/v2/transactions/consumption/3000000001"
        try deployment.fake.queueFaults([["kind": "status", "status": 503, "path": path],
                                         ["kind": "status", "status": 429, "retryAfter": 120, "path": path]])
        var work = try deployment.work(now: Self.start)
        // Apple down: the run sends nothing more (3000000099 waits its turn).
        #expect(work["waiting"] == 1 && work["notAnswered"] == 0, "\(work)")
        work = try deployment.work(now: Self.start + 30)
        // 3000000099 is unknown to Apple: 404, final; 3000000001 is not due before its backoff.
        #expect(work["waiting"] == 0 && work["notAnswered"] == 1, "\(work)")
        work = try deployment.work(now: Self.start + 61)
        #expect(work["waiting"] == 1, "the 429: \(work)")
        work = try deployment.work(now: Self.start + 61 + 121)
        #expect(work["answered"] == 1, "\(work)")
        let statuses = try deployment.consumptionPuts().filter { $0["path"] as? String == path }.compactMap { $0["status"] as? Int }
        #expect(statuses == [503, 429, 202])
        let notAnswered = try #require((try deployment.requests()["notAnswered"] as? [[String: Any]])?.first)
        #expect(notAnswered["notAnsweredReason"] as? String == "apple_refused")
        #expect((notAnswered["lastError"] as? [String: Any])?["code"] as? String == "TransactionIdNotFoundError")
    }

    /// SIGKILL while the answer is on its way (Apple holds the PUT): the next run sends it again.
    @Test func aWorkerKilledWhileSendingLeavesTheAnswerDueForTheNextRun() throws {
        let deployment = try D()
        try deployment.deliver("CONSUMPTION_REQUEST", uuid: "55555555-0000-4000-8000-000000000001", transactionId: "3000000001")
        _ = try deployment.run("set-consumption", ["appAccountToken": D.token, "customerConsented": true])
        try deployment.fake.queueFaults([["kind": "hang", "seconds": 20, "path": "/inApps/v2/transactions/consumption/"]])
        let request = deployment.folder.appendingPathComponent("request.json")
        try Data("{}".utf8).write(to: request)
        let worker = try SpawnedProcess.spawn(FunctionBinary.binDirectory.appendingPathComponent("process-notifications").path,
                                              environment: deployment.environment(now: Self.start), directory: FunctionBinary.repositoryRoot.path,
                                              stdin: request.path)
        let deadline = Date().addingTimeInterval(30)
        while try deployment.consumptionPuts().isEmpty, Date() < deadline { usleep(20_000) }
        #expect(try deployment.consumptionPuts().count == 1, "the worker reached Apple")
        worker.send(SIGKILL)
        #expect(worker.wait(seconds: 10) != nil)
        try deployment.fake.clearFaults()
        let work = try deployment.work(now: Self.start + 1)
        #expect(work["answered"] == 1, "\(work)")
        #expect(try deployment.consumptionPuts().map { $0["fault"] as? String ?? "answered" } == ["hang", "answered"])
        #expect((try deployment.requests()["answered"] as? [[String: Any]])?.count == 1)
    }

    @Test func consentIsALineOfTheCustomersAuditTrailAndADeletedCustomerIsRefused() throws {
        let deployment = try D()
        let given = try deployment.run("set-consumption", ["userId": "user-7", "customerConsented": true, "reason": "ticket 12"])
        #expect(given.exitCode == 0, "\(given.answer)")
        let withdrawn = try deployment.run("set-consumption", ["userId": "user-7", "customerConsented": false], now: Self.start + 60)
        #expect((withdrawn.answer["consent"] as? [String: Any])?["consented"] as? Bool == false)
        let customer = try deployment.run("get-customer", ["userId": "user-7"], now: Self.start + 120)
        let history = try #require((customer.answer["customer"] as? [String: Any])?["history"] as? [[String: Any]], "\(customer.answer)")
        #expect(history.compactMap { $0["type"] as? String } == ["CONSUMPTION_CONSENT_GIVEN", "CONSUMPTION_CONSENT_WITHDRAWN"])
        #expect(history.first?["actor"] as? String == "local" && history.first?["reason"] as? String == "ticket 12")

        let deleted = try deployment.run("delete-customer", ["userId": "user-7", "reason": "account closed"], now: Self.start + 180)
        #expect(deleted.exitCode == 0, "\(deleted.answer)")
        let refused = try deployment.run("set-consumption", ["userId": "user-7", "customerConsented": true], now: Self.start + 240)
        #expect(refused.exitCode == 65 && (refused.answer["error"] as? [String: Any])?["code"] as? String == "customer_deleted")
    }

    /// Over HTTP: set-consumption takes a support token (the audit trail names it), refund-requests a read token.
    @Test func theScopesOverHTTP() throws {
        typealias S = ScopedTokenBinaryTests
        let app = ["APPSTORE_BUNDLE_ID": "com.example.storekeeper", "APPSTORE_ENVIRONMENT": "Sandbox"]
        let body = #"{"userId": "user-1", "customerConsented": true}"#
        let recorded = try S.call("set-consumption", method: "POST", path: "/appstore/consumption", bearer: S.desk, body: body)
        #expect(recorded.status == 200 && (recorded.body?["consent"] as? [String: Any])?["recordedBy"] as? String == "helpdesk",
                "\(recorded)")
        let refused = try S.call("set-consumption", method: "POST", path: "/appstore/consumption", bearer: S.reader, body: body)
        #expect(refused.status == 403 && refused.code == "insufficient_scope")
        let report = try S.call("refund-requests", method: "GET", path: "/appstore/refund-requests", query: "environment=Sandbox&limit=5",
                                bearer: S.reader, extra: app)
        #expect(report.status == 200 && report.body?["environment"] as? String == "Sandbox", "\(report)")
        let badLimit = try S.call("refund-requests", method: "GET", path: "/appstore/refund-requests", query: "limit=lots",
                                  bearer: S.reader, extra: app)
        #expect(badLimit.status == 400 && badLimit.code == "invalid_request")
    }
}
