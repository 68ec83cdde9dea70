import FoundationEssentials
@testable import StorekeeperCore
import Testing

/// export-data's core on the in-memory store: which transactions and events a run writes,
/// where its cursor goes, and what it does when the log was trimmed past it.
@Suite("Data export: rows, cursor, incremental runs")
struct DataExportTests {
    static let now: Int64 = 1_780_272_000_000

    /// A store with subscriptions bought through the simulator, each applied as Apple sent it.
    struct World {
        let store = MemoryStore()
        var simulators: [LifecycleSimulator] = []
        var eventCount = 0

        var repository: EntitlementRepository { EntitlementRepository(store: store) }

        mutating func subscribe(_ id: String, user: String?, renewals: Int = 0) throws {
            var simulator = LifecycleSimulator(originalTransactionId: id)
            simulator.subscribe()
            for _ in 0..<renewals { simulator.renew() }
            for fact in simulator.events { try repository.apply(fact, userId: user) }
            simulators.append(simulator)
        }

        /// An event in the log about a transaction, as the relay would append it.
        mutating func event(_ type: EventType, _ original: String, transaction: String?, customer: String = "u") throws {
            eventCount += 1
            let log = EventLog(store: store)
            let version = try log.version(ofCustomer: customer)
            let event = Event(id: "e\(eventCount)", type: type.rawValue, occurredAt: DataExportTests.now, recordedAt: DataExportTests.now,
                              app: "com.example.storekeeper", environment: "Sandbox", customerId: customer, userId: customer,
                              productId: "com.example.pro.monthly", transactionId: transaction, originalTransactionId: original,
                              source: "notification", customer: .object(["version": .number(Double(version + 1))]))
            _ = try log.append(event, expectedVersion: version)
        }

        func run(_ of: ExportCursor.Kind = .transactions, full: Bool = false, limit: Int = 1000, cursor: String? = nil,
                 save: Bool = true) throws -> DataExport.Outcome {
            let export = DataExport(store: store, now: DataExportTests.now)
            let name = cursor ?? of.rawValue
            let outcome = try export.run(DataExport.Request(of: of, cursor: name, full: full, limit: limit, format: .ndjson,
                                                            dates: .milliseconds))
            if save { #expect(try export.save(outcome, cursor: name)) }
            return outcome
        }
    }

    /// The NDJSON lines of a run, decoded.
    static func lines(_ outcome: DataExport.Outcome) throws -> [[String: JSONValue]] {
        try outcome.table.bytes.split(separator: 0x0A).map { line in
            guard case .object(let fields) = try JSONDecoder().decode(JSONValue.self, from: Data(line)) else { throw StoreError(.failed, "not an object") }
            return fields
        }
    }

    static func values(_ name: String, _ outcome: DataExport.Outcome) throws -> [String] {
        try lines(outcome).compactMap { if case .string(let value)? = $0[name] { value } else { nil } }
    }

    static func transactionIds(_ outcome: DataExport.Outcome) throws -> [String] {
        try values("transactionId", outcome)
    }

    @Test func theFirstRunExportsEveryTransactionWithItsOwnerThenOnlyWhatEventsName() throws {
        var world = World()
        try world.subscribe("1000000001", user: "alice", renewals: 1)
        try world.subscribe("1000000002", user: nil)
        try world.event(.initialPurchase, "1000000001", transaction: "10000000011")
        let first = try world.run()
        #expect(first.mode == "full")
        #expect(try Self.transactionIds(first) == ["10000000011", "10000000012", "10000000021"])
        #expect(try Self.lines(first).map { $0["userId"] } == [.string("alice"), .string("alice"), .null])
        #expect(first.to == 1, "the log's last sequence")

        let quiet = try world.run()
        #expect(quiet.mode == "incremental")
        #expect(quiet.rows == 0)
        #expect(quiet.from == 1 && quiet.to == 1)

        // A refund of the first period, as the relay records it: that transaction again.
        try world.event(.refund, "1000000001", transaction: "10000000011")
        try world.event(.transfer, "1000000002", transaction: nil)
        let second = try world.run()
        #expect(try Self.transactionIds(second) == ["10000000011", "10000000021"], "the named one, and all of the transferred purchase")
        #expect(second.from == 1 && second.to == 3 && second.eventsRead == 2)
        #expect(try world.run().rows == 0)
    }

    @Test func aKilledRunWhoseCursorWasNotSavedIsRepeated() throws {
        var world = World()
        try world.subscribe("1000000003", user: "bob")
        _ = try world.run()
        try world.event(.renewal, "1000000003", transaction: "10000000031")
        let unsaved = try world.run(save: false)
        #expect(unsaved.rows == 1)
        let again = try world.run()
        #expect(try Self.transactionIds(again) == ["10000000031"], "nothing skipped")
    }

    @Test func aFullExportStopsAtItsLimitAndTheNextRunGoesOn() throws {
        var world = World()
        for index in 1...5 { try world.subscribe("100000001\(index)", user: "u\(index)") }
        try world.event(.initialPurchase, "1000000011", transaction: "10000000111")
        let first = try world.run(limit: 2)
        #expect(first.rows == 2 && !first.complete)
        // Meanwhile something changes: exported once the walk is done, never lost.
        try world.event(.refund, "1000000011", transaction: "10000000111")
        let second = try world.run(limit: 2)
        let third = try world.run(limit: 2)
        #expect(second.mode == "full" && third.mode == "full")
        #expect(third.complete)
        let walked = try [first, second, third].flatMap(Self.transactionIds)
        #expect(walked == (1...5).map { "100000001\($0)1" })
        let after = try world.run(limit: 2)
        #expect(after.mode == "incremental")
        #expect(try Self.transactionIds(after) == ["10000000111"], "the refund during the walk")
    }

    @Test func aCursorBehindTheTrimmedLogFallsBackToFull() throws {
        var world = World()
        try world.subscribe("1000000021", user: "carol")
        _ = try world.run()
        #expect(try world.run(.events, cursor: "behind").rows == 0)
        try world.event(.renewal, "1000000021", transaction: "10000000211")
        try world.event(.renewal, "1000000021", transaction: "10000000211")
        _ = try world.run(.events)
        // Every event so far is older than the retention: trimmed.
        try EventLog(store: world.store).trim(olderThanDays: 1, now: Self.now + 2 * 86_400_000)
        try world.event(.cancellation, "1000000021", transaction: "10000000211")
        let fallback = try world.run()
        #expect(fallback.fellBackToFull)
        #expect(fallback.mode == "full")
        #expect(try Self.transactionIds(fallback) == ["10000000211"])
        let caughtUp = try world.run(.events)
        #expect(!caughtUp.fellBackToFull, "this cursor had read both before they went")
        #expect(try Self.values("id", caughtUp) == ["e3"])
        let behind = try world.run(.events, cursor: "behind")
        #expect(behind.fellBackToFull)
        #expect(behind.eventsTrimmed == 2)
        #expect(try Self.values("id", behind) == ["e3"])
    }

    @Test func eventsAfterTheCursorOldestFirstAndACursorServesOneKind() throws {
        var world = World()
        try world.subscribe("1000000031", user: "dan")
        for _ in 1...3 { try world.event(.renewal, "1000000031", transaction: "10000000311") }
        let first = try world.run(.events, limit: 2)
        #expect(try Self.lines(first).map { $0["sequence"] } == [.number(1), .number(2)])
        #expect(!first.complete)
        let second = try world.run(.events, limit: 2)
        #expect(try Self.lines(second).map { $0["sequence"] } == [.number(3)])
        #expect(second.complete)
        #expect(throws: DataExport.Refusal.self) { try world.run(.transactions, cursor: "events") }
        let lines = first.table.bytes.split(separator: 0x0A)
        let stored = try EventLog(store: world.store).events(after: 0, limit: 2)
        #expect(try lines.map(Array.init) == stored.map { try $0.encoded() }, "each event as delivered")
    }

    @Test func twoCursorsAreIndependent() throws {
        var world = World()
        try world.subscribe("1000000041", user: "erin")
        #expect(try world.run(cursor: "warehouse").rows == 1)
        #expect(try world.run(cursor: "sheet").rows == 1)
        #expect(try world.run(cursor: "warehouse").rows == 0)
    }
}
