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
        #expect(lines.count == 10)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect((object?["per_second"] as? Int ?? 0) > 0, "\(line)")
            print("\(backend.name) (debug build): \(line)")
        }
    }
}

extension KeyValueStoreConformanceTests {
    /// Processes appending at once, each reading a stream's version and appending at it (as
    /// the relay does): sequences unique and dense, every stream's versions exact and in
    /// sequence order, an id appended by all of them appended once.
    @Test(arguments: StoreBackend.all)
    func concurrentAppendsGetDenseSequencesAndExactStreamVersions(backend: StoreBackend) async throws {
        let locator = try backend.makeLocator()
        let processes = 4, count = 60, streams = 3
        let results = try await StressProcess.runTogether(
            Array(repeating: ["append-log", locator, Self.log, String(count), String(streams)], count: processes))
        Self.expectAllSucceeded(results)
        let lines = results.flatMap(\.lines).map { $0.split(separator: " ").map(String.init) }
        let appended = lines.filter { $0.first == "appended" && $0.count == 5 }
        let duplicates = lines.filter { $0.first == "duplicate" && $0.count == 3 }
        let shared = (0..<count).filter { $0 % 4 == 0 }.count
        #expect(appended.count + duplicates.count == lines.count)
        #expect(appended.count == processes * count + shared)
        #expect(duplicates.count == (processes - 1) * shared)
        #expect(Set(appended.map { $0[2] }) == Set((1...(processes * count + shared)).map(String.init)))
        let sequenceOfId = Dictionary(appended.map { ($0[1], $0[2]) }, uniquingKeysWith: { first, _ in first })
        #expect(sequenceOfId.count == appended.count, "an id was appended twice")
        for duplicate in duplicates { #expect(sequenceOfId[duplicate[1]] == duplicate[2], "\(duplicate)") }

        let store = try backend.open(locator)
        let entries = try store.readLog(Self.log, after: 0, limit: 10_000)
        #expect(Self.sequences(entries) == Array(1...Int64(processes * count + shared)))
        for index in 0..<streams {
            let stream = "s-\(index)"
            let versions = entries.filter { $0.stream == stream }.map(\.streamVersion)
            #expect(versions == Array(1...Int64(versions.count)), "\(stream) in sequence order: \(versions)")
            #expect(try store.logStreamVersion(Self.log, stream: stream) == Int64(versions.count))
            // Each entry was built from the version it was appended at.
            for entry in entries where entry.stream == stream {
                #expect(String(decoding: entry.bytes, as: UTF8.self) == "\(entry.id) at \(stream) v\(entry.streamVersion)")
            }
        }
    }
}
