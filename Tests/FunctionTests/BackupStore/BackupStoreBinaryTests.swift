import Foundation
import SQLiteStore
import StorekeeperCore
import Testing
import TestSupport

/// backup-store through the built binaries: copies taken while process-notifications writes
/// are sound and whole, and a copy restored (offline, as the README says, and online with
/// `restore`) answers get-entitlements and get-customer byte for byte as the store did.
@Suite("backup-store: copies under writes, restored, answer the same", .serialized)
struct BackupStoreBinaryTests {
    /// Reads are made at one pinned time, so an answer depends on the stored facts alone.
    static let pinnedNow = "2026-12-01T00:00:00Z"
    static let leaseSeconds = 1.0

    /// One deployment on an SQLite file, with its backup folder.
    struct Deployment {
        let folder: URL
        let storePath: String
        let backups: String
        var environment: [String: String]

        init(keep: Int = 100) throws {
            folder = try E2E.scratchFolder("backup")
            storePath = folder.appendingPathComponent("storekeeper.db").path
            backups = folder.appendingPathComponent("backups").path
            try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: true)
            environment = E2E.environment(storeURL: "sqlite:" + storePath, adminToken: "unused")
            environment["STORE_BACKUP_DIR"] = backups
            environment["STORE_BACKUP_KEEP"] = String(keep)
            // A copy taken mid-run holds the worker's claim; after a restore that job waits for
            // its lease to end, as after a killed worker. Short, so the test need not wait 30 s.
            environment["PROCESS_LEASE_SECONDS"] = String(BackupStoreBinaryTests.leaseSeconds)
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }

        /// One backup-store run: its answer (or error) and exit status.
        func backup(_ request: [String: Any] = [:], environment extra: [String: String] = [:]) throws -> (answer: [String: Any], exit: Int32) {
            let result = try FunctionBinary(name: "backup-store").run(
                stdin: try JSONSerialization.data(withJSONObject: request), environment: environment.merging(extra) { $1 })
            let answer = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] ?? [:]
            return (answer, result.exitCode)
        }

        /// get-entitlements and get-customer for every id, one NDJSON batch each, at the
        /// pinned time: the exact bytes answered.
        func answers(_ ids: [String]) throws -> [String] {
            var environment = environment
            environment["STOREKEEPER_NOW"] = BackupStoreBinaryTests.pinnedNow
            let lines = try ids.map { String(decoding: try JSONSerialization.data(withJSONObject: ["originalTransactionId": $0]), as: UTF8.self) }
            let stdin = Data(lines.joined(separator: "\n").utf8 + [0x0A])
            var answers: [String] = []
            for name in ["get-entitlements", "get-customer"] {
                let result = try FunctionBinary(name: name).run(stdin: stdin, environment: environment)
                #expect(result.exitCode == 0, "\(name): \(result.stderrText.suffix(1000))")
                answers += result.stdoutText.split(separator: "\n").map(String.init)
            }
            #expect(answers.count == 2 * ids.count)
            return answers
        }

        func deliver(_ signed: [String]) throws {
            let received = try Binaries.receive(signed, environment: environment)
            #expect(received.exitCode == 0 && Set(received.answers) == ["accepted"], "\(Set(received.answers))")
            let run = try Binaries.process(environment: environment)
            #expect(run.exitCode == 0 && run.report?.remaining == 0, "\(run)\n\(pendingJobs())")
        }

        /// The jobs still queued, as rows (for a failure's message).
        func pendingJobs() -> String {
            let sqlite = Process()
            sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            sqlite.arguments = ["python3", "-c", """
                import sqlite3, sys, time
                c = sqlite3.connect(sys.argv[1])
                print(int(time.time() * 1000), c.execute("SELECT id, state, visible_at, attempts FROM jobs WHERE state IN ('ready', 'leased')").fetchall())
                """, storePath]
            let output = Pipe()
            sqlite.standardOutput = output
            guard (try? sqlite.run()) != nil else { return "?" }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            sqlite.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// Subscriptions that start a day apart; `groups` numbers their notifications apart from
    /// other stories' (the simulator derives notification UUIDs from it) in 2026 (the fixture leaf is valid 2025-2030).
    static func stories(_ count: Int, from firstId: Int, groups: Int, notifications: Int, seed: UInt64) -> [LifecycleSimulator] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            var story = LifecycleSimulator(originalTransactionId: String(firstId + index), group: groups + index,
                                           start: 1_767_225_600_000 + Int64(index) * LifecycleSimulator.day)
            story.playRandomly(notifications: notifications, using: &generator)
            return story
        }
    }

    /// A copy as a store of its own (a scratch duplicate: opening a database may write beside it).
    static func openCopy(_ path: String, in folder: URL) throws -> SQLiteStore {
        let duplicate = folder.appendingPathComponent("inspect-\(UUID().uuidString).db").path
        try FileManager.default.copyItem(atPath: path, toPath: duplicate)
        return try SQLiteStore(path: duplicate)
    }

    @Test("copies taken while process-notifications writes are whole; restored offline and online they answer the same")
    func lifecycleBackupRestore() throws {
        let deployment = try Deployment()
        defer { deployment.remove() }
        // A: the users whose answers must survive. Their later notifications (C) change them.
        var early = Self.stories(8, from: 5_000_000_000, groups: 100, notifications: 6, seed: 0xBAC0)
        for index in early.indices { early[index].renew(); early[index].renew() }
        let late = Self.stories(30, from: 5_100_000_000, groups: 200, notifications: 10, seed: 0xBAC1)
        let specs = early.flatMap { $0.notifications.prefix(6) } + late.flatMap(\.notifications) + early.flatMap { $0.notifications.dropFirst(6) }
        let signed = try Binaries.sign(specs)
        let (aSigned, rest) = (Array(signed.prefix(48)), Array(signed.dropFirst(48)))
        let (bSigned, cSigned) = (Array(rest.prefix(300)), Array(rest.dropFirst(300)))
        let ids = early.map(\.originalTransactionId)

        try deployment.deliver(aSigned)
        let before = try deployment.answers(ids)

        // B: 300 notifications queued, then one worker applies them while copies are taken.
        let received = try Binaries.receive(bSigned, environment: deployment.environment)
        #expect(received.exitCode == 0 && Set(received.answers) == ["accepted"])
        let copies = try Self.copiesWhileWriting(deployment)
        #expect(copies.count >= 1, "no copy was taken while the worker was writing")

        // Each copy: checked by the function, and whole: the event log has every sequence up to its last.
        var lasts = Set<Int64>()
        for (copy, _) in copies {
            let store = try Self.openCopy(copy, in: deployment.folder)
            let bounds = try store.logBounds(StoreKeys.eventLog)
            let entries = try store.readLog(StoreKeys.eventLog, after: 0, limit: 100_000)
            #expect(entries.map(\.sequence) == Array(stride(from: 1, through: bounds.last, by: 1)), "\(copy): a gap in the log")
            lasts.insert(bounds.last)
        }
        print("backup-store: \(copies.count) copies taken while the worker wrote; event log lasts \(lasts.sorted())")
        let chosen = try #require(copies.last?.file)
        // A job the worker held when the copy was taken is claimed again once its lease ends:
        // a time by definition, so waiting for the clock to pass it is waiting for the condition.
        let leaseOver = try #require(copies.last?.taken).addingTimeInterval(Self.leaseSeconds + 0.3)
        while Date() < leaseOver { usleep(20_000) }

        // C changes the early users; then the offline restore the README describes brings them back.
        try deployment.deliver(cSigned)
        #expect(try deployment.answers(ids) != before, "the later notifications changed nothing: the test proves nothing")
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: deployment.storePath + suffix) }
        let staged = deployment.storePath + ".restoring"
        try FileManager.default.copyItem(atPath: chosen, toPath: staged)
        #expect(rename(staged, deployment.storePath) == 0)
        #expect(try deployment.answers(ids) == before)

        // C again (the restored store never saw it), then the online restore, a request of backup-store.
        try deployment.deliver(cSigned)
        #expect(try deployment.answers(ids) != before)
        let restored = try deployment.backup(["restore": chosen])
        #expect(restored.exit == 0 && restored.answer["restored"] as? Bool == true && restored.answer["check"] as? String == "ok",
                "\(restored)")
        #expect(try deployment.answers(ids) == before)
        // The restored store goes on: the worker finishes what was queued when the copy was taken.
        let run = try Binaries.process(environment: deployment.environment)
        #expect(run.exitCode == 0 && run.report?.failed == 0 && run.report?.remaining == 0, "\(run)")
    }

    /// Runs the worker over what is queued and takes copies until it ends; answers the copies
    /// begun after it started and finished before it ended.
    static func copiesWhileWriting(_ deployment: Deployment) throws -> [(file: String, taken: Date)] {
        let request = deployment.folder.appendingPathComponent("worker.json")
        try Data(#"{"budgetSeconds": 120}"#.utf8).write(to: request)
        let worker = try SpawnedProcess.spawn(
            FunctionBinary.binDirectory.appendingPathComponent("process-notifications").path, [],
            environment: deployment.environment, directory: FunctionBinary.repositoryRoot.path, stdin: request.path,
            stdout: deployment.folder.appendingPathComponent("worker.out").path,
            stderr: deployment.folder.appendingPathComponent("worker.log").path)
        var copies: [(file: String, taken: Date)] = []
        while worker.poll() == nil, copies.count < 50 {
            let copy = try deployment.backup()
            #expect(copy.exit == 0 && copy.answer["check"] as? String == "ok", "\(copy)")
            if worker.poll() == nil, let file = copy.answer["file"] as? String { copies.append((file, Date())) }
        }
        #expect(worker.waitOrKill(limit: 120).termination == .exited(0))
        return copies
    }
}
