import Foundation
import StorekeeperCore
import Testing

/// Races between real processes (Tests/Tools/store-stress), each with its own connection,
/// as functions run in production: a process per request, many at once.
extension KeyValueStoreConformanceTests {
    static func expectAllSucceeded(_ results: [ChildProcess.Result]) {
        for result in results {
            #expect(result.exitCode == 0, "store-stress \(result.processIdentifier) exited \(result.exitCode): \(result.stderr)")
        }
    }

    @Test(arguments: StoreBackend.all)
    func exactlyOneOfAThousandConcurrentSetIfAbsentWins(backend: StoreBackend) async throws {
        // A store nobody opened yet: the processes also race to create it.
        let locator = try backend.makeLocator()
        let results = try await StressProcess.runTogether(
            Array(repeating: ["set-if-absent", locator, "{race}:dedup", "100"], count: 10))
        Self.expectAllSucceeded(results)
        let wins = results.map { Int($0.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
        #expect(wins.reduce(0, +) == 1, "wins per process: \(wins)")
        let winner = try #require(results.first { $0.stdout.hasPrefix("1") })
        let store = try backend.open(locator)
        #expect(try store.get("{race}:dedup")?.bytes == Array("won by \(winner.processIdentifier)".utf8))
    }

    @Test(arguments: StoreBackend.all)
    func concurrentCompareAndSetIncrementsLoseNoUpdate(backend: StoreBackend) async throws {
        let locator = try backend.makeLocator()
        let processes = 8, increments = 100
        let results = try await StressProcess.runTogether(
            Array(repeating: ["cas-increment", locator, "counter", String(increments)], count: processes))
        Self.expectAllSucceeded(results)
        let store = try backend.open(locator)
        let counter = try #require(try store.get("counter"))
        #expect(String(decoding: counter.bytes, as: UTF8.self) == String(processes * increments))
        let conflicts = results.compactMap { $0.lines.first?.split(separator: " ").last.flatMap { Int($0) } }
        print("\(backend.name): \(processes) processes × \(increments) compareAndSet increments, \(conflicts.reduce(0, +)) conflicts retried")
    }

    @Test(arguments: StoreBackend.all)
    func concurrentWorkersProcessEveryJobExactlyOnce(backend: StoreBackend) async throws {
        let locator = try backend.makeLocator()
        let store = try backend.open(locator)
        let jobs = (0..<300).map { "job-\($0)" }
        for id in jobs { try store.enqueue(QueuedJob(id: id, payload: Array(id.utf8)), on: "work") }

        let results = try await StressProcess.runTogether(
            Array(repeating: ["claim-all", locator, "work"], count: 6))
        Self.expectAllSucceeded(results)
        let processed = results.flatMap(\.lines)
        #expect(processed.count == jobs.count, "\(processed.count) acknowledgements for \(jobs.count) jobs")
        #expect(Set(processed) == Set(jobs))
        #expect(try store.pendingCount(in: "work") == 0)
        #expect(try store.deadLetters(in: "work") == [])
        print("\(backend.name): jobs per worker \(results.map(\.lines.count))")
    }

    @Test(arguments: StoreBackend.all)
    func concurrentSetIfAbsentAndEnqueueQueuesOneJob(backend: StoreBackend) async throws {
        let locator = try backend.makeLocator()
        let results = try await StressProcess.runTogether(
            Array(repeating: ["set-if-absent-and-enqueue", locator, "{n}:seen", "{n}:queue", "50"], count: 6))
        Self.expectAllSucceeded(results)
        let wins = results.map { Int($0.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
        #expect(wins.reduce(0, +) == 1, "wins per process: \(wins)")
        let store = try backend.open(locator)
        #expect(try store.pendingCount(in: "{n}:queue") == 1)
        let winner = try #require(results.first { $0.stdout.hasPrefix("1") })
        let job = try #require(try store.claim(from: "{n}:queue", lease: .seconds(60)))
        #expect(job.job.id.hasPrefix("job-\(winner.processIdentifier)-"))
        #expect(try store.get("{n}:seen")?.bytes == job.job.payload)
    }

    /// Keeps `store-stress bench` working; the figures come from a release build (make bench).
    @Test(arguments: StoreBackend.all)
    func benchmarkScenarioRuns(backend: StoreBackend) async throws {
        let results = try await StressProcess.runTogether([["bench", try backend.makeLocator(), "200"]])
        Self.expectAllSucceeded(results)
        let lines = try #require(results.first).lines
        #expect(lines.count == 8)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect((object?["per_second"] as? Int ?? 0) > 0, "\(line)")
            print("\(backend.name) (debug build): \(line)")
        }
    }
}
