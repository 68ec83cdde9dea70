import Foundation
import Glibc
import RedisStore
import SQLiteStore
import StorekeeperCore
import Testing
import TestSupport

/// copy-store killed with SIGKILL at several moments and started again: the last run finishes
/// the copy from the progress the killed ones left, adds no job or log entry twice, and its
/// verification passes; expiries and the queue's states arrive as they were.
@Suite("copy-store: killed and run again, it finishes without duplicates", .serialized)
struct CopyStoreKillTests {
    struct Direction: CustomTestStringConvertible, Sendable {
        let name: String
        /// A new, empty source and target, as STORE_URLs.
        let make: @Sendable (_ folder: URL) throws -> (source: String, target: String)
        var testDescription: String { name }
    }

    static let directions: [Direction] = RedisTestServer.shouldRun ? [
        Direction(name: "SQLite → Redis") { folder in ("sqlite:" + folder.appendingPathComponent("source.db").path, try RedisTestServer.freshDatabase()) },
        Direction(name: "Redis → SQLite") { folder in (try RedisTestServer.freshDatabase(), "sqlite:" + folder.appendingPathComponent("target.db").path) },
    ] : []

    static func open(_ url: String) throws -> any StoreContents {
        url.hasPrefix("sqlite:") ? try SQLiteStore(path: String(url.dropFirst("sqlite:".count))) : try RedisStore(url: url)
    }

    /// Enough that a copy takes a while: 4000 values (a tenth expiring in 30 s, one expired), a
    /// set of 1500 members, 300 jobs (some leased, some dead), 2000 log entries over 50 streams.
    static func fill(_ store: any StoreContents) throws {
        try StoreLayout.prepare(store, context: StoreMigrationContext { nil })
        for index in 0..<4000 {
            try store.set("value:\(index)", Array("bytes of \(index)".utf8), expiresIn: index % 10 == 0 ? .seconds(30) : nil)
        }
        try store.set("value:expired", Array("x".utf8), expiresIn: .milliseconds(1))
        for index in 0..<1500 { try store.addToSet("members", "member-\(index)") }
        for index in 0..<300 {
            try store.enqueue(QueuedJob(id: "job-\(index)", payload: Array("job \(index)".utf8), priority: index % 3, maxAttempts: 2), on: "{copyq}")
        }
        for _ in 0..<40 { _ = try store.claim(from: "{copyq}", lease: .seconds(120)) }
        for _ in 0..<20 {
            if let job = try store.claim(from: "{copyq}", lease: .seconds(120)) { try store.release(job, retryIn: .zero) }
            if let job = try store.claim(from: "{copyq}", lease: .seconds(120)) { try store.release(job, retryIn: .seconds(300)) }
        }
        for index in 1...2000 {
            let stream = "c:\(index % 50)"
            let version = try store.logStreamVersion(StoreKeys.eventLog, stream: stream)
            _ = try store.appendToLog(StoreKeys.eventLog, LogAppend(id: "event-\(index)", stream: stream, expectedStreamVersion: version,
                                                                    recordedAt: Int64(index), bytes: Array("event \(index)".utf8)))
        }
        try store.trimLog(StoreKeys.eventLog, recordedBefore: 11, limit: 100)
    }

    @Test(arguments: directions)
    func killedAndRunAgainItFinishes(_ direction: Direction) throws {
        let folder = try E2E.scratchFolder("copy-kill")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (sourceURL, targetURL) = try direction.make(folder)
        let source = try Self.open(sourceURL)
        try Self.fill(source)
        let environment = CopyStoreBinaryTests.environment(from: sourceURL, to: targetURL)
        let request = folder.appendingPathComponent("request.json")
        try Data("{}".utf8).write(to: request)

        var killed = 0
        // The pages each killed run's progress had reached (nil: none was left, the kill came
        // before the first page was saved or after the copy pass, during its verification).
        var reached: [Int?] = []
        let target = try Self.open(targetURL)
        for delay in [0.15, 0.3, 0.5, 0.8, 1.2] {
            let copy = try SpawnedProcess.spawn(FunctionBinary.binDirectory.appendingPathComponent("copy-store").path, [],
                                                environment: environment, directory: FunctionBinary.repositoryRoot.path, stdin: request.path,
                                                stdout: folder.appendingPathComponent("out-\(delay)").path,
                                                stderr: folder.appendingPathComponent("log-\(delay)").path)
            usleep(useconds_t(delay * 1_000_000))
            if copy.poll() == nil {
                copy.send(SIGKILL)
                killed += 1
            }
            #expect(copy.waitOrKill(limit: 60).termination != .exited(75), "a run found a difference")
            let progress = try target.get(StoreKeys.copyProgress).flatMap { try JSONSerialization.jsonObject(with: Data($0.bytes)) as? [String: Any] }
            reached.append(progress?["pages"] as? Int)
        }
        print("copy-store (\(direction.name)): \(killed) of 5 runs killed; pages their progress had reached: \(reached)")
        #expect(killed >= 2, "the copy was too quick to be killed mid-way: the test proves nothing")
        // Each run that left progress went on from the one before: the pages only grow.
        let saved = reached.compactMap { $0 }
        #expect(saved.count >= 2 && saved == saved.sorted() && Set(saved).count == saved.count, "\(reached)")

        let last = try CopyStoreBinaryTests.run(environment)
        print("copy-store (\(direction.name)): the last run: resumed \(last.answer["resumed"] ?? "?"), copied \(last.answer["copied"] ?? "?"), skipped \(last.answer["skipped"] ?? "?"), \(last.answer["milliseconds"] ?? "?") ms")
        #expect(last.exit == 0, "\(last.answer) \(last.log.suffix(800))")
        #expect((last.answer["verification"] as? [String: Any])?["passed"] as? Bool == true, "\(last.answer)")
        try Self.checkTarget(try Self.open(targetURL), against: source)
    }

    /// Every job once, in its state; every entry once, at its sequence; expiries kept.
    static func checkTarget(_ target: any StoreContents, against source: any StoreContents) throws {
        #expect(try target.pendingCount(in: "{copyq}") == source.pendingCount(in: "{copyq}"))
        #expect(try Set(target.deadLetters(in: "{copyq}")) == Set(source.deadLetters(in: "{copyq}")))
        #expect(try !target.deadLetters(in: "{copyq}").isEmpty)
        #expect(try target.logBounds(StoreKeys.eventLog) == source.logBounds(StoreKeys.eventLog))
        #expect(try target.readLog(StoreKeys.eventLog, after: 0, limit: 5000) == source.readLog(StoreKeys.eventLog, after: 0, limit: 5000))
        #expect(try target.get("value:expired") == nil && target.get(StoreKeys.copyProgress) == nil)
        let expiring = try #require(try target.expiringValue("value:10")?.expiresAt)
        let original = try #require(try source.expiringValue("value:10")?.expiresAt)
        #expect(abs(expiring - original) <= StoreCopier.tolerance, "expiry \(expiring) in the copy, \(original) in the source")
        for index in [0, 1, 39, 40, 45, 299] {
            #expect(try target.job("job-\(index)", in: "{copyq}")?.attempts == source.job("job-\(index)", in: "{copyq}")?.attempts)
        }
    }
}
