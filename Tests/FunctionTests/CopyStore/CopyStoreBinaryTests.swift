import Foundation
import RedisStore
import SQLiteStore
import StorekeeperCore
import Testing
import TestSupport

/// copy-store through the built binary: a store the functions filled, copied SQLite → Redis →
/// SQLite, answers the same from every copy; a verification finds what was changed, removed or
/// added in the copy; refusals.
@Suite("copy-store: SQLite and Redis copied into each other through the binary", .serialized)
struct CopyStoreBinaryTests {
    static let pinnedNow = "2026-12-01T00:00:00Z"

    static func run(_ environment: [String: String], _ request: [String: Any] = [:]) throws -> (answer: [String: Any], exit: Int32, log: String) {
        let result = try FunctionBinary(name: "copy-store").run(stdin: try JSONSerialization.data(withJSONObject: request), environment: environment)
        let answer = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] ?? [:]
        return (answer, result.exitCode, result.stderrText)
    }

    static func environment(from source: String, to target: String) -> [String: String] {
        var environment = E2E.environment(storeURL: source, adminToken: "unused")
        environment["COPY_STORE_TARGET_URL"] = target
        return environment
    }

    /// get-entitlements and get-customer for each id, then the whole event log as list-events
    /// answers it, at the pinned time: the bytes answered.
    static func answers(_ ids: [String], storeURL: String) throws -> [String] {
        var environment = E2E.environment(storeURL: storeURL, adminToken: "unused")
        environment["STOREKEEPER_NOW"] = pinnedNow
        let lines = try ids.map { String(decoding: try JSONSerialization.data(withJSONObject: ["originalTransactionId": $0]), as: UTF8.self) }
        var answers: [String] = []
        for (name, stdin) in [("get-entitlements", lines), ("get-customer", lines), ("list-events", [#"{"after": 0, "limit": 1000}"#])] {
            let result = try FunctionBinary(name: name).run(stdin: Data((stdin.joined(separator: "\n") + "\n").utf8), environment: environment)
            #expect(result.exitCode == 0, "\(name): \(result.stderrText.suffix(800))")
            answers += result.stdoutText.split(separator: "\n").map(String.init)
        }
        return answers
    }

    static func counts(_ answer: [String: Any], _ field: String) -> [String: Int] {
        answer[field] as? [String: Int] ?? [:]
    }

    @Test("a store filled by the functions, copied SQLite → Redis → SQLite, answers the same from each; a tampered copy fails its verification")
    func roundTrip() throws {
        guard RedisTestServer.shouldRun else {
            print("CopyStoreBinaryTests: skipped, \(RedisTestServer.unavailableReason ?? "no redis-server")")
            return
        }
        let folder = try E2E.scratchFolder("copy")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = "sqlite:" + folder.appendingPathComponent("source.db").path
        let stories = BackupStoreBinaryTests.stories(6, from: 6_000_000_000, groups: 300, notifications: 6, seed: 0xC0B1)
        let signed = try Binaries.sign(stories.flatMap(\.notifications))
        let sourceEnvironment = E2E.environment(storeURL: source, adminToken: "unused")
        let received = try Binaries.receive(Array(signed.dropLast(4)), environment: sourceEnvironment)
        #expect(received.exitCode == 0 && Set(received.answers) == ["accepted"])
        let processed = try Binaries.process(environment: sourceEnvironment)
        #expect(processed.exitCode == 0 && processed.report?.remaining == 0, "\(processed)")
        // Four notifications received but not applied: queued jobs the copy must carry.
        #expect(try Binaries.receive(Array(signed.suffix(4)), environment: sourceEnvironment).exitCode == 0)
        let ids = stories.map(\.originalTransactionId)
        let before = try Self.answers(ids, storeURL: source)

        let redis = try RedisTestServer.freshDatabase()
        let there = try Self.run(Self.environment(from: source, to: redis))
        #expect(there.exit == 0, "\(there.answer) \(there.log.suffix(800))")
        #expect((there.answer["verification"] as? [String: Any])?["passed"] as? Bool == true)
        #expect(Self.counts(there.answer, "copied")["jobs"] == 4 && (Self.counts(there.answer, "copied")["logEntries"] ?? 0) > 6)
        #expect(there.answer["target"] as? String == "redis" && !there.log.contains(redis), "the log names the target's address")
        #expect(try Self.answers(ids, storeURL: redis) == before)
        #expect(try RedisStore(url: redis).pendingCount(in: StoreKeys.notificationQueue) == 4)

        let back = "sqlite:" + folder.appendingPathComponent("back.db").path
        let home = try Self.run(Self.environment(from: redis, to: back))
        #expect(home.exit == 0, "\(home.answer) \(home.log.suffix(800))")
        #expect(try Self.answers(ids, storeURL: back) == before)
        // The worker goes on in the copy: the four queued notifications are applied there.
        let finished = try Binaries.process(environment: E2E.environment(storeURL: back, adminToken: "unused"))
        #expect(finished.exitCode == 0 && finished.report?.remaining == 0, "\(finished)")

        try Self.tamperedCopyFailsItsVerification(source: source, redis: redis)
    }

    /// A value changed, a key removed and a key added in the copy: three differences, exit 75.
    static func tamperedCopyFailsItsVerification(source: String, redis: String) throws {
        let copy = try RedisStore(url: redis)
        let key = try #require(try copy.contents(after: nil, limit: 10_000).items.compactMap { item -> String? in
            if case .value(let key, _, _) = item, key.hasPrefix("appstore:app:") { return key } else { return nil }
        }.first)
        try copy.set(key, Array("tampered".utf8), expiresIn: nil)
        #expect(try copy.delete(StoreKeys.layoutVersion))
        try copy.set("stray:key", Array("x".utf8), expiresIn: nil)
        let verified = try Self.run(Self.environment(from: source, to: redis), ["verify": true])
        #expect(verified.exit == 75, "\(verified.answer)")
        #expect((verified.answer["error"] as? [String: Any])?["code"] as? String == "copy_differs")
        let verification = try #require(verified.answer["verification"] as? [String: Any])
        let items = Set((verification["differences"] as? [[String: Any]] ?? []).compactMap { $0["item"] as? String })
        #expect(items == [key, StoreKeys.layoutVersion, "stray:key"], "\(verification)")
        #expect(verified.answer["copied"] == nil, "a verification copies nothing")
        #expect(try copy.get("stray:key") != nil && copy.get(StoreKeys.layoutVersion) == nil, "a verification wrote")
    }

    @Test("the same store is refused (an SQLite file by any spelling, a Redis database with other credentials), exit 78")
    func sameStoreIsRefused() throws {
        let folder = try E2E.scratchFolder("copy-same")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.db").path
        let pairs = [("sqlite:" + path, "sqlite:" + folder.path + "/../" + folder.lastPathComponent + "/store.db"),
                     ("redis://127.0.0.1:6399/3", "redis://:secret@127.0.0.1:6399/3"), ("redis://127.0.0.1/0", "rediss://127.0.0.1:6379")]
        for (source, target) in pairs {
            let refused = try Self.run(Self.environment(from: source, to: target))
            #expect(refused.exit == 78 && (refused.answer["error"] as? [String: Any])?["code"] as? String == "copy_same_store",
                    "\(source) → \(target): \(refused.answer)")
            #expect(!refused.log.contains("secret"))
        }
    }

    @Test("a missing or malformed COPY_STORE_TARGET_URL is exit 78 naming it, never echoing it")
    func badTargetIsAConfigurationError() throws {
        for target in [nil, "postgres://user:hunter2@db.internal/storekeeper", "redis://"] as [String?] {
            var environment = E2E.environment(storeURL: "sqlite:" + FileManager.default.temporaryDirectory.appendingPathComponent("copy-\(UUID()).db").path,
                                              adminToken: "unused")
            environment["COPY_STORE_TARGET_URL"] = target
            let result = try Self.run(environment)
            let error = result.answer["error"] as? [String: Any]
            #expect(result.exit == 78 && error?["code"] as? String == "configuration_error", "\(target ?? "unset"): \(result.answer)")
            #expect((error?["message"] as? String ?? "").contains("COPY_STORE_TARGET_URL"))
            #expect(!"\(result.answer)\(result.log)".contains("hunter2"))
        }
    }
}
