import Foundation
import StorekeeperCore
import StorekeeperTesting
import Testing
import TestSupport

/// `list-events` as a black box: an event log written into a real store (SQLite, and Redis
/// when it runs here), read a page at a time by the built binary, directly and over HTTP GET.
@Suite("list-events: the event log a page at a time, through the built binary")
struct ListEventsBinaryTests {
    typealias World = EventLogWorld

    struct Answer {
        var json: [String: Any]
        var exitCode: Int32
        var stderr: String
        var events: [[String: Any]] { json["events"] as? [[String: Any]] ?? [] }
        var sequences: [Int] { events.compactMap { $0["sequence"] as? Int } }
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
        var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }
    }

    static func list(_ world: World, _ request: [String: Any], extra: [String: String] = [:]) throws -> Answer {
        let result = try FunctionBinary(name: "list-events").run(
            stdin: try JSONSerialization.data(withJSONObject: request), environment: world.environment.merging(extra) { $1 })
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] ?? [:]
        return Answer(json: json, exitCode: result.exitCode, stderr: result.stderrText)
    }

    /// A mixed log: 25 events of three users and anonymous purchases, Sandbox and Production.
    static func mixedLog(_ world: World) throws -> [Event] {
        let types: [EventType] = [.initialPurchase, .renewal, .renewal, .cancellation, .refund]
        let users: [String?] = ["user-a", "user-b", nil, "user-c", "user-a"]
        return try world.append((1...25).map { number in
            World.event(number, type: types[number % types.count], userId: users[(number / 5) % users.count],
                        environment: number % 3 == 0 ? "Production" : "Sandbox")
        })
    }

    @Test(arguments: World.Backend.available)
    func pagesFollowEachOtherByNext(backend: World.Backend) throws {
        let world = try World(backend)
        let log = try Self.mixedLog(world)
        var after = 0
        var seen: [Int] = []
        for expected in [Array(1...10), Array(11...20), Array(21...25), []] {
            let page = try Self.list(world, ["after": after, "limit": 10])
            #expect(page.exitCode == 0, "\(page.stderr)")
            #expect(page.sequences == expected)
            #expect(page.json["next"] as? Int == (expected.last ?? after))
            #expect(page.json["oldest"] as? Int == 1)
            #expect(page.json["gap"] as? Bool == false)
            #expect(page.json["retentionDays"] as? Int == 90)
            seen += page.sequences
            after = page.json["next"] as? Int ?? -1
        }
        #expect(seen == Array(1...25))
        // Each event as it was recorded, with its sequence and every field (null when unknown).
        let first = try #require(try Self.list(world, ["limit": 1]).events.first)
        let recorded = try JSONSerialization.jsonObject(with: Data(try log[0].encoded())) as? [String: Any]
        #expect(NSDictionary(dictionary: first).isEqual(to: try #require(recorded)))
        #expect(first.keys.contains("appAccountToken") && first["appAccountToken"] is NSNull)
        #expect((first["customer"] as? [String: Any])?["version"] as? Int == 1)
        // The default page is 100, so everything; after the end, next stays where it was.
        #expect(try Self.list(world, [:]).sequences == Array(1...25))
        let beyond = try Self.list(world, ["after": 400])
        #expect(beyond.sequences == [] && beyond.json["next"] as? Int == 400 && beyond.json["gap"] as? Bool == false)
    }

    @Test(arguments: World.Backend.available)
    func eventsStillInOutboxesAreRelayedBeforeThePage(backend: World.Backend) throws {
        let world = try World(backend)
        // Changes written without relaying (as by a writer killed after its write).
        var story = LifecycleSimulator(originalTransactionId: "77")
        story.subscribe()
        story.renew()
        for fact in story.events { try EntitlementRepository(store: world.store).apply(fact) }
        #expect(try world.store.setMembers(StoreKeys.eventOutboxes).count == 2)
        let page = try Self.list(world, [:])
        #expect(page.exitCode == 0, "\(page.stderr)")
        #expect(page.events.compactMap { $0["type"] as? String } == ["INITIAL_PURCHASE", "RENEWAL"])
        #expect(page.events.allSatisfy { $0["customerId"] as? String == "otid:77" })
        #expect(page.events.compactMap { ($0["customer"] as? [String: Any])?["version"] as? Int } == [1, 2])
        #expect(try world.store.setMembers(StoreKeys.eventOutboxes).isEmpty)
        #expect(try Self.list(world, [:]).sequences == [1, 2], "relayed once")
    }

    @Test(arguments: World.Backend.available)
    func filtersKeepTheirEventsAndNextStillMovesOn(backend: World.Backend) throws {
        let world = try World(backend)
        let log = try Self.mixedLog(world)
        func expected(_ keep: (Event) -> Bool) -> [Int] { log.filter(keep).map { Int($0.sequence) } }

        let refunds = try Self.list(world, ["types": ["REFUND"]])
        #expect(refunds.sequences == expected { $0.type == "REFUND" })
        #expect(refunds.json["next"] as? Int == 25, "the whole log was examined")
        let two = try Self.list(world, ["types": ["RENEWAL", "CANCELLATION"], "limit": 2])
        #expect(two.sequences == Array(expected { $0.type == "RENEWAL" || $0.type == "CANCELLATION" }.prefix(2)))
        #expect(two.json["next"] as? Int == two.sequences.last, "a full page ends at its last event")
        #expect(try Self.list(world, ["userId": "user-a"]).sequences == expected { $0.userId == "user-a" })
        #expect(try Self.list(world, ["environment": "Production"]).sequences == expected { $0.environment == "Production" })
        let combined = try Self.list(world, ["userId": "user-a", "environment": "Sandbox", "types": ["RENEWAL"], "after": 3])
        #expect(combined.sequences == expected { $0.sequence > 3 && $0.userId == "user-a" && $0.environment == "Sandbox" && $0.type == "RENEWAL" })
        let none = try Self.list(world, ["userId": "nobody", "after": 7])
        #expect(none.exitCode == 0 && none.sequences == [] && none.json["next"] as? Int == 25)
    }

    @Test(arguments: World.Backend.available)
    func aSparseFilterStopsAfterBoundedWork(backend: World.Backend) throws {
        let world = try World(backend)
        try world.append((1...1_150).map { World.event($0, type: .renewal, userId: "user-\($0 % 7)") })
        // limit 1 examines at most 1000 entries (10 × limit, at least 1000): none matches.
        let first = try Self.list(world, ["types": ["REFUND"], "limit": 1])
        #expect(first.exitCode == 0, "\(first.stderr)")
        #expect(first.sequences == [])
        #expect(first.json["next"] as? Int == 1_000)
        let second = try Self.list(world, ["types": ["REFUND"], "limit": 1, "after": 1_000])
        #expect(second.sequences == [] && second.json["next"] as? Int == 1_150)
    }

    @Test(arguments: World.Backend.available)
    func aReaderBehindTheRetentionLearnsItMissedEvents(backend: World.Backend) throws {
        let world = try World(backend)
        let old = World.now - 100 * World.day
        try world.append((1...5).map { World.event($0, type: .renewal, userId: "user-a", recordedAt: old) })
        try world.append((6...8).map { World.event($0, type: .renewal, userId: "user-a") })
        #expect(try world.store.trimLog(StoreKeys.eventLog, recordedBefore: World.now - 90 * World.day, limit: 100) == 5)
        let behind = try Self.list(world, ["after": 2], extra: ["STOREKEEPER_EVENT_RETENTION_DAYS": "30"])
        #expect(behind.sequences == [6, 7, 8])
        #expect(behind.json["gap"] as? Bool == true)
        #expect(behind.json["oldest"] as? Int == 6)
        #expect(behind.json["retentionDays"] as? Int == 30)
        #expect(try Self.list(world, ["after": 5]).json["gap"] as? Bool == false)
        // Everything trimmed: still a gap for whoever had not read it, none for who had.
        #expect(try world.store.trimLog(StoreKeys.eventLog, recordedBefore: .max, limit: 100) == 3)
        let emptied = try Self.list(world, ["after": 7])
        #expect(emptied.sequences == [] && emptied.json["gap"] as? Bool == true && emptied.json["oldest"] is NSNull)
        #expect(try Self.list(world, ["after": 8]).json["gap"] as? Bool == false)
        let bad = try Self.list(world, [:], extra: ["STOREKEEPER_EVENT_RETENTION_DAYS": "0"])
        #expect(bad.exitCode == 78, "\(bad.json)")
    }

    @Test func badInputIsRefusedNamingTheField() throws {
        let world = try World(.sqlite)
        let cases: [([String: Any], String)] = [
            (["after": -1], "after must be a whole number, 0 or more (a sequence)"),
            (["after": "12a"], "after must be a whole number, 0 or more (a sequence)"),
            (["after": 1.5], "after must be a whole number, 0 or more (a sequence)"),
            (["limit": 0], "limit must be a whole number from 1 to 1000"),
            (["limit": 1_001], "limit must be a whole number from 1 to 1000"),
            (["types": ["RENEWAL", "renewal"]], "renewal is not an event type"),
            (["types": []], "types must name at least one event type"),
            (["types": [1]], "types must be an array of event types, or one string of them comma-separated"),
            (["environment": "production"], "environment must be one of Production, Sandbox, Xcode, LocalTesting"),
            (["userId": ""], "userId must not be empty"),
        ]
        for (request, message) in cases {
            let answer = try Self.list(world, request)
            #expect(answer.exitCode == 65, "\(request)")
            #expect(answer.errorCode == "invalid_request", "\(request)")
            #expect(answer.errorMessage == message, "\(request)")
        }
        let unknown = try Self.list(world, ["from": 3])
        #expect(unknown.exitCode == 65 && unknown.errorCode == "unknown_field")
    }

    @Test func aStoreThatCannotBeReachedIsRetryLater() throws {
        // A port nobody listens on: every connection is refused.
        let port = try RedisTestServer.freePort()
        let result = try FunctionBinary(name: "list-events").run(
            stdin: Data(#"{"after": 0}"#.utf8), environment: ["STORE_URL": "redis://127.0.0.1:\(port)/0"])
        #expect(result.exitCode == 75, "\(result.stderrText)")
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let error = try #require(json?["error"] as? [String: Any])
        #expect(error["code"] as? String == "store_unavailable")
        #expect(!result.stdoutText.contains("127.0.0.1"), "the store's address stays in the log")
        let overHTTP = try Self.get(["STORE_URL": "redis://127.0.0.1:\(port)/0"], query: "after=0")
        #expect(overHTTP.status == 503)
        #expect(overHTTP.exitCode == 75)
        #expect((overHTTP.body["error"] as? [String: Any])?["code"] as? String == "store_unavailable")
    }

    // MARK: Over HTTP GET

    static let reader = "dashboard-read-0123456789abcdef"

    /// GET /events?query through the HTTP event door with a read token: status, body, exit.
    static func get(_ world: World, query: String, bearer: String = reader) throws -> (status: Int, body: [String: Any], exitCode: Int32) {
        try get(world.environment, query: query, bearer: bearer)
    }

    static func get(_ environment: [String: String], query: String, bearer: String = reader) throws -> (status: Int, body: [String: Any], exitCode: Int32) {
        let event: [String: Any] = [
            "version": "2.0", "rawPath": "/events", "rawQueryString": query, "body": "",
            "headers": ["authorization": "Bearer \(bearer)"],
            "requestContext": ["http": ["method": "GET", "path": "/events"]], "isBase64Encoded": false,
        ]
        let result = try FunctionBinary(name: "list-events").run(
            stdin: try JSONSerialization.data(withJSONObject: event),
            environment: environment.merging(["STOREKEEPER_TOKENS": "dashboard:read:\(reader)"]) { $1 })
        let answer = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] ?? [:]
        let body = (answer["body"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return (answer["statusCode"] as? Int ?? 0, body ?? [:], result.exitCode)
    }

    @Test(arguments: World.Backend.available)
    func overGetEveryParameterIsAString(backend: World.Backend) throws {
        let world = try World(backend)
        let log = try Self.mixedLog(world)
        let page = try Self.get(world, query: "after=2&limit=3&types=RENEWAL,%20REFUND&environment=Sandbox")
        #expect(page.status == 200, "\(page.body)")
        let wanted = log.filter { $0.sequence > 2 && ["RENEWAL", "REFUND"].contains($0.type) && $0.environment == "Sandbox" }.prefix(3)
        #expect((page.body["events"] as? [[String: Any]])?.compactMap { $0["sequence"] as? Int } == wanted.map { Int($0.sequence) })
        #expect(page.body["next"] as? Int == wanted.last.map { Int($0.sequence) })
        #expect(try Self.get(world, query: "").body["next"] as? Int == 25)
        for query in ["limit=abc", "after=-1", "after=1e3", "limit=", "types=RENEWAL,,REFUND"] {
            let refused = try Self.get(world, query: query)
            #expect(refused.status == 400, "\(query)")
            #expect((refused.body["error"] as? [String: Any])?["code"] as? String == "invalid_request", "\(query)")
        }
        #expect((try Self.get(world, query: "cursor=3").body["error"] as? [String: Any])?["code"] as? String == "unknown_field")
        #expect(try Self.get(world, query: "", bearer: "wrong-0123456789abcdef").status == 401)
    }
}
