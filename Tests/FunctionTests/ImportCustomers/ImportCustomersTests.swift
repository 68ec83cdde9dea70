import Foundation
import Glibc
import StorekeeperCore
import Testing
import TestSupport

/// `import-customers` as an operator runs it: the built binary against the fake App Store,
/// on a fresh store, with what a hosted service exports.
@Suite("import-customers against the fake App Store", .serialized)
struct ImportCustomersTests {
    static let now = E2E.nowMilliseconds
    static let day = AppleWorld.day

    /// A subscription bought 40 days ago and renewed 10 days ago: two transactions at Apple.
    static func renewed(_ id: String) -> [String: Any] {
        AppleWorld.customer([
            AppleWorld.period(id, purchase: now - 40 * day, expires: now - 10 * day),
            AppleWorld.period(id, transactionId: "21" + id.dropFirst(2), purchase: now - 10 * day, expires: now + 20 * day),
        ])
    }

    static func current(_ id: String) -> [String: Any] {
        AppleWorld.customer([AppleWorld.period(id, purchase: now - 2 * day, expires: now + 28 * day)])
    }

    static func lines(_ run: AppleWorld.Run) -> [[String: Any]] { run.report["lines"] as? [[String: Any]] ?? [] }

    /// The paths of the fake's requests, sandbox prefix removed.
    static func paths(_ world: AppleWorld) throws -> [String] {
        try world.fake.requests().compactMap { $0["path"] as? String }
    }

    @Test("each line's verdict: linked and backfilled, not found, invalid, another user's; a rerun asks Apple nothing",
          arguments: Backend.allCases)
    func everyVerdictAndAnAnsweredRerun(_ backend: Backend) throws {
        guard backend == .sqlite || AppleWorld.redisAvailable else { return }
        let renewed = "2000000701", current = "2000000702", unknown = "2000000799"
        let world = try AppleWorld(backend, customers: [Self.renewed(renewed), Self.current(current)])
        let request: [String: Any] = ["customers": [
            ["userId": "rc-1", "originalTransactionId": renewed],
            ["app_user_id": "rc-2", "original_transaction_id": current, "bundle_id": FakeAppStore.bundleId],
            ["userId": "rc-3", "originalTransactionId": unknown],
            ["userId": "", "originalTransactionId": current],
            ["userId": "rc-4", "originalTransactionId": "GPA.1234"],
            ["userId": "rc-5", "originalTransactionId": renewed],
            ["userId": "rc-6", "originalTransactionId": current, "bundleId": "com.example.other"],
            ["userId": "rc-7", "originalTransactionID": current],
        ]]
        let first = try world.run("import-customers", request)
        #expect(first.exitCode == 0, "\(first)")
        let lines = Self.lines(first)
        #expect(lines.map { $0["result"] as? String } == [
            "linked", "linked", "not_found", "invalid_line", "invalid_line", "already_linked_to_another_user", "invalid_line", "invalid_line",
        ], "\(first)")
        #expect(lines.map { $0["line"] as? Int } == Array(1...8))
        #expect(lines[0]["transactionsBackfilled"] as? Int == 2, "the purchase and its renewal: \(lines[0])")
        #expect(lines[1]["transactionsBackfilled"] as? Int == 1)
        #expect(lines[0]["alreadyLinked"] as? Bool == false)
        #expect((lines[0]["subscriptions"] as? [[String: Any]])?.first?["status"] as? String == "active")
        #expect(lines[5]["transactionsBackfilled"] as? Int == 0, "the same answers again change nothing")
        #expect((lines[3]["reason"] as? String)?.contains("user id") == true)
        #expect((lines[4]["reason"] as? String)?.contains("decimal digits") == true)
        #expect((lines[6]["reason"] as? String)?.contains("bundle id") == true)
        #expect((lines[7]["reason"] as? String)?.contains("originalTransactionID") == true)
        #expect(first.report["counts"] as? [String: Int] == [
            "linked": 2, "not_found": 1, "invalid_line": 4, "already_linked_to_another_user": 1,
        ])
        #expect(first.report["done"] as? Int == 8)
        // Invalid lines never reached Apple; every valid one asked for its history.
        let asked = try Self.paths(world)
        #expect(asked.contains("/inApps/v2/history/\(renewed)"))
        #expect(asked.contains("/inApps/v2/history/\(unknown)"))
        #expect(!asked.contains { $0.contains("GPA") })
        // rc-5's line was answered from the owner already stored: the renewed one's history once.
        #expect(asked.filter { $0 == "/inApps/v2/history/\(renewed)" }.count == 1, "\(asked)")
        #expect(first.report["appleRequests"] as? Int == asked.count, "\(asked)")

        // What the users have now: the purchase, as an import fact; rc-5 has nothing.
        let mine = try world.run("get-entitlements", ["userId": "rc-1"])
        let entitlements = mine.json["entitlements"] as? [[String: Any]] ?? []
        #expect(entitlements.map { $0["originalTransactionId"] as? String } == [renewed], "\(mine)")
        #expect((entitlements.first?["lastEvent"] as? [String: Any])?["source"] as? String == "import")
        #expect(mine.json["active"] as? Bool == true)
        #expect((try world.run("get-entitlements", ["userId": "rc-5"]).json["entitlements"] as? [[String: Any]])?.isEmpty == true)

        // The same input again: answered from the store, Apple not asked.
        try world.fake.clearLog()
        let again = try world.run("import-customers", request)
        #expect(again.exitCode == 0, "\(again)")
        #expect(try Self.paths(world).isEmpty)
        #expect(Self.lines(again).map { $0["result"] as? String } == lines.map { $0["result"] as? String })
        #expect(Self.lines(again).allSatisfy { $0["fromEarlierRun"] as? Bool == true })
        #expect(again.report["appleRequests"] as? Int == 0)

        // restart: asked again, nothing new to apply, the purchase already the user's.
        let restarted = try world.run("import-customers", request.merging(["restart": true]) { $1 })
        #expect(restarted.exitCode == 0, "\(restarted)")
        #expect(Self.lines(restarted)[0]["alreadyLinked"] as? Bool == true)
        #expect(Self.lines(restarted)[0]["result"] as? String == "linked")
        #expect(restarted.report["transactionsBackfilled"] as? Int == 0, "\(restarted)")
        #expect(try Self.paths(world).contains("/inApps/v2/history/\(renewed)"))
    }

    @Test("a customer's second purchase on a later line is answered from the first line's answers")
    func oneQuestionPerCustomer() throws {
        let monthly = "2000000751", yearly = "2000000752", other = "2000000753"
        var second = AppleWorld.period(yearly, purchase: Self.now - 5 * Self.day, expires: Self.now + 360 * Self.day)
        second["productId"] = "com.example.pro.yearly"
        let world = try AppleWorld(customers: [
            AppleWorld.customer([AppleWorld.period(monthly, purchase: Self.now - 3 * Self.day, expires: Self.now + 27 * Self.day), second]),
            Self.current(other),
        ])
        let run = try world.run("import-customers", ["customers": [
            ["userId": "multi", "originalTransactionId": monthly],
            ["userId": "multi", "originalTransactionId": yearly],
            ["userId": "someone-else", "originalTransactionId": other],
        ]])
        #expect(run.exitCode == 0, "\(run)")
        let lines = Self.lines(run)
        #expect(lines.map { $0["result"] as? String } == ["linked", "linked", "linked"], "\(run)")
        #expect(lines[0]["transactionsBackfilled"] as? Int == 2, "the customer's whole history came with the first line")
        #expect(lines[1]["alreadyLinked"] as? Bool == true)
        #expect((lines[1]["subscriptions"] as? [[String: Any]])?.first?["productId"] as? String == "com.example.pro.yearly")
        let histories = try Self.paths(world).filter { $0.hasPrefix("/inApps/v2/history/") }
        #expect(histories == ["/inApps/v2/history/\(monthly)", "/inApps/v2/history/\(other)"], "\(histories)")
    }

    @Test("two apps in one deployment: a line names its app, whose bid its questions carry")
    func twoApps() throws {
        let second = "com.example.second", id = "2000000761"
        let world = try AppleWorld(customers: [Self.current(id)], bundleId: second)
        let catalog = FileManager.default.temporaryDirectory.appendingPathComponent("import-catalog-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: catalog) }
        try Data("""
            {"apps": [{"bundleId": "\(FakeAppStore.bundleId)", "appAppleId": 1111111111, "environments": ["Production"]},
                      {"bundleId": "\(second)", "appAppleId": \(FakeAppStore.appAppleId), "environments": ["Production"]}],
             "entitlements": {"pro": {}},
             "products": {"\(AppleWorld.productId)": {"bundleId": "\(second)", "entitlements": ["pro"]}}}
            """.utf8).write(to: catalog)
        let environment = ["STOREKEEPER_CATALOG": catalog.path, "APPSTORE_BUNDLE_ID": "", "APPSTORE_APP_APPLE_ID": "", "APPSTORE_ENVIRONMENT": ""]
        let run = try world.run("import-customers", ["customers": [
            ["userId": "two-1", "originalTransactionId": id, "bundleId": second],
            ["userId": "two-2", "originalTransactionId": id],
        ]], extra: environment)
        #expect(run.exitCode == 0, "\(run)")
        let lines = Self.lines(run)
        #expect(lines.map { $0["result"] as? String } == ["linked", "invalid_line"], "\(run)")
        #expect((lines[1]["reason"] as? String)?.contains("several apps") == true)
        #expect(try world.fake.requests().allSatisfy { $0["auth"] as? String == "ok" }, "every token carried the second app's bid")
        let mine = try world.run("get-entitlements", ["userId": "two-1"], extra: environment)
        #expect((mine.json["entitlements"] as? [[String: Any]])?.first?["originalTransactionId"] as? String == id, "\(mine)")
    }

    @Test("a RevenueCat CSV export: its column names, quotes, CRLF, extra columns, a short row")
    func aRevenueCatExport() throws {
        let first = "2000000801", second = "2000000802"
        let world = try AppleWorld(customers: [Self.current(first), Self.current(second)])
        let folder = try E2E.scratchFolder("import-csv")
        let file = folder.appendingPathComponent("customers.csv")
        let csv = "\u{FEFF}app_user_id,store,original_transaction_id,product_identifier\r\n"
            + "\"$RCAnonymousID:8d1c\",app_store,\(first),com.example.pro.monthly\r\n"
            + "\r\n"
            + "\"user, with a comma\",app_store,\"\(second)\",\"com.example.\"\"quoted\"\"\"\r\n"
            + "short-row,app_store\r\n"
        try Data(csv.utf8).write(to: file)
        let run = try world.run("import-customers", ["file": file.path])
        #expect(run.exitCode == 0, "\(run)")
        let lines = Self.lines(run)
        #expect(lines.map { $0["result"] as? String } == ["linked", "linked", "invalid_line"], "\(run)")
        #expect(lines.map { $0["line"] as? Int } == [2, 4, 5], "file rows, the header being row 1")
        #expect(lines.map { $0["source"] as? String } == ["file", "file", "file"])
        #expect(lines[1]["userId"] as? String == "user, with a comma")
        #expect(try world.run("get-entitlements", ["userId": "$RCAnonymousID:8d1c"]).json["active"] as? Bool == true)

        // A file without the columns it needs is refused whole, before anything is asked.
        try Data("user,transaction\nu,1\n".utf8).write(to: file)
        try world.fake.clearLog()
        let refused = try world.run("import-customers", ["file": file.path])
        #expect(refused.exitCode == 65, "\(refused)")
        #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "invalid_request")
        #expect(try Self.paths(world).isEmpty)
    }

    @Test("a run killed part-way: the rerun resumes at the line it was on and reports every line")
    func aKilledRunResumes() throws {
        let ids = (1...16).map { String(format: "20000009%02d", $0) }
        let world = try AppleWorld(customers: ids.map(Self.current))
        let request: [String: Any] = ["customers": ids.enumerated().map { ["userId": "u-\($0.offset + 1)", "originalTransactionId": $0.element] }]
        let killed = try world.spawn("import-customers", request, extra: ["RECONCILE_REQUESTS_PER_SECOND": "4"])
        let deadline = Date().addingTimeInterval(60)
        while try Self.paths(world).count < 8, Date() < deadline, killed.process.poll() == nil {
            usleep(20_000)
        }
        killed.process.send(SIGKILL)
        #expect(killed.process.wait(seconds: 10) == .signaled(SIGKILL))
        let historiesBefore = try Self.paths(world).filter { $0.hasPrefix("/inApps/v2/history/") }
        #expect(historiesBefore.count >= 3 && historiesBefore.count < ids.count, "\(historiesBefore.count) lines begun before the kill")

        let rerun = try world.run("import-customers", request, extra: ["RECONCILE_REQUESTS_PER_SECOND": "50"])
        #expect(rerun.exitCode == 0, "\(rerun)")
        let resumedAt = try #require(rerun.report["resumedAt"] as? Int, "\(rerun)")
        // After the last line finished: the one in flight, if any, is done again.
        #expect(resumedAt > 1 && resumedAt <= historiesBefore.count + 1, "resumed at line \(resumedAt)")
        let lines = Self.lines(rerun)
        #expect(lines.count == ids.count)
        #expect(lines.allSatisfy { $0["result"] as? String == "linked" }, "\(rerun)")
        #expect(lines.prefix(resumedAt - 1).allSatisfy { $0["fromEarlierRun"] as? Bool == true })
        #expect(lines.dropFirst(resumedAt - 1).allSatisfy { $0["fromEarlierRun"] == nil })
        // Each line's history was asked once, but the one in flight when the process died.
        let histories = try Self.paths(world).filter { $0.hasPrefix("/inApps/v2/history/") }
        #expect(Set(histories) == Set(ids.map { "/inApps/v2/history/\($0)" }))
        #expect(histories.count <= ids.count + 1, "\(histories.count) history requests for \(ids.count) lines")
        for (index, id) in ids.enumerated() {
            let answer = try world.run("get-entitlements", ["userId": "u-\(index + 1)"])
            #expect((answer.json["entitlements"] as? [[String: Any]])?.first?["originalTransactionId"] as? String == id)
        }
    }

    @Test("out of time under the shared rate limit: exit 0, outOfTime, the rerun goes on")
    func outOfTimeResumes() throws {
        let ids = (1...6).map { String(format: "20000005%02d", $0) }
        let world = try AppleWorld(customers: ids.map(Self.current))
        let request: [String: Any] = ["customers": ids.map { ["userId": "slow-\($0)", "originalTransactionId": $0] }, "budgetSeconds": 1.5]
        // One request a second, two a line: the budget ends a line or two in, refusing to wait past it.
        let short = try world.run("import-customers", request, extra: ["RECONCILE_REQUESTS_PER_SECOND": "1"])
        #expect(short.exitCode == 0, "\(short)")
        #expect(short.report["outOfTime"] as? Bool == true)
        let done = try #require(short.report["done"] as? Int)
        #expect(done >= 1 && done < ids.count, "\(short)")

        let rest = try world.run("import-customers", request.merging(["budgetSeconds": 60]) { $1 },
                                 extra: ["RECONCILE_REQUESTS_PER_SECOND": "50"])
        #expect(rest.exitCode == 0, "\(rest)")
        // The run is named by its lines, not by the budget: the same run, resumed.
        #expect(rest.report["resumedAt"] as? Int == done + 1, "\(rest)")
        #expect(rest.report["outOfTime"] as? Bool == false)
        #expect(Self.lines(rest).map { $0["result"] as? String } == Array(repeating: "linked", count: ids.count), "\(rest)")
        #expect(Self.lines(rest).prefix(done).allSatisfy { $0["fromEarlierRun"] as? Bool == true }, "\(rest)")
    }

    @Test("an answer that fails verification is a rejected line, linked to nobody; a refused API key is exit 78")
    func unverifiableAnswersAndARefusedKey() throws {
        let id = "2000000401"
        let world = try AppleWorld(customers: [Self.current(id)])
        let request: [String: Any] = ["customers": [["userId": "v-1", "originalTransactionId": id]]]
        let otherRoot = E2E.pki.appendingPathComponent("other-root.pem").path
        let run = try world.run("import-customers", request, extra: ["APPSTORE_ROOT_CERTS": otherRoot])
        #expect(run.exitCode == 0, "\(run)")
        let line = try #require(Self.lines(run).first)
        #expect(line["result"] as? String == "rejected", "\(run)")
        #expect(line["code"] as? String == "INVALID_CERTIFICATE")
        #expect((try world.run("get-entitlements", ["userId": "v-1"]).json["entitlements"] as? [[String: Any]])?.isEmpty == true)
        #expect(run.stderr.contains("import_answer_rejected"))

        let refused = try world.run("import-customers", request.merging(["restart": true]) { $1 },
                                    extra: ["APPSTORE_KEY_ID": "WRONGKEY99"])
        #expect(refused.exitCode == 78, "\(refused)")
        #expect(refused.stdout.contains("APPSTORE_KEY_ID"))
    }

    @Test("Apple down: exit 75 and apple_unavailable at a line, the rerun goes on from it")
    func appleDownStopsAtALine() throws {
        let ids = (1...4).map { String(format: "20000006%02d", $0) }
        let world = try AppleWorld(customers: ids.map(Self.current), extra: ["APPSTORE_API_TIMEOUT_SECONDS": "1"])
        let request: [String: Any] = ["customers": ids.map { ["userId": "down-\($0)", "originalTransactionId": $0] }]
        // The first line's history and statuses pass, then Apple fails for longer than a call's retries.
        try world.fake.queueFaults([["kind": "pass"], ["kind": "pass"]] + Array(repeating: ["kind": "status", "status": 503], count: 60))
        let down = try world.run("import-customers", request)
        #expect(down.exitCode == 75, "\(down)")
        #expect(down.report["stoppedBy"] as? String == "apple_unavailable")
        #expect(Self.lines(down).map { $0["result"] as? String } == ["linked"], "\(down)")

        try world.fake.clearFaults()
        let again = try world.run("import-customers", request)
        #expect(again.exitCode == 0, "\(again)")
        #expect(again.report["resumedAt"] as? Int == 2)
        #expect(Self.lines(again).map { $0["result"] as? String } == Array(repeating: "linked", count: 4))
    }
}
