import Foundation
import Glibc
import Testing
import TestSupport

/// The store failing is never the caller's fault: through the built binaries, a full disk, a
/// read-only database, a damaged one, a file that is not a database and a stopped Redis are
/// all 503 / exit 75, a Redis that refuses the password is exit 78, and no answer on stdout
/// (the worker's included) names the store, its message, its result code, a host or a path.
/// Those are in the JSON log on stderr. Each fault is real: a small tmpfs filled up, a
/// read-only bind mount, pages overwritten in a real database file, a real redis-server.
@Suite("Store faults through the binaries: 503 / exit 75 (78 for the store's configuration), never 400 / 65, nothing of the store on stdout",
       .serialized)
struct StoreFaultTests {
    // MARK: SQLite

    @Test("A full disk (a small tmpfs filled up): the webhook answers 503, the worker exits 75 and burns no attempt; with room again, nothing was lost")
    func aFullDisk() throws {
        let folder = try E2E.scratchFolder("full")
        defer { try? FileManager.default.removeItem(at: folder) }
        let mountFailure = Mounts.tmpfs(at: folder, size: "2m")
        defer { if mountFailure == nil { Mounts.unmount(folder) } }
        if let mountFailure, FaultRunner.prlimit == nil {
            print("StoreFaultTests: aFullDisk skipped: no tmpfs (\(mountFailure)) and no prlimit (util-linux) for a file-size limit")
            return
        }
        let scene = try Scene(folder: folder, group: 0x5f01)
        let filler = folder.appendingPathComponent("filler")
        if let mountFailure, let prlimit = FaultRunner.prlimit {
            // No mount here (a container without CAP_SYS_ADMIN): a file-size limit
            // (RLIMIT_FSIZE) on each function process refuses every write that grows a store
            // file instead. SQLite then reports an I/O error rather than SQLITE_FULL.
            print("StoreFaultTests: no tmpfs (\(mountFailure)); a file-size limit (prlimit --fsize) stands in for the full disk")
            try scene.expectRetryLater(kind: nil, runner: .limited(prlimit, bytes: try scene.largestFileSize()))
        } else {
            Mounts.fill(filler)
            try scene.expectRetryLater(kind: "store_full")
        }

        // Room again: Apple's retry is accepted and the worker applies everything, none of
        // the queued jobs having spent an attempt or been dead-lettered.
        try? FileManager.default.removeItem(at: filler)
        try scene.expectRecovered()
    }

    @Test("A read-only database (a read-only bind mount): the webhook answers 503, the worker exits 75, reads still work; writable again, nothing was lost")
    func aReadOnlyDatabase() throws {
        let folder = try E2E.scratchFolder("read-only")
        defer { try? FileManager.default.removeItem(at: folder) }
        let scene = try Scene(folder: folder, group: 0x5f02)
        guard let (undo, byMount) = Mounts.makeReadOnly(folder, files: scene.databaseFiles) else { return }
        var undone = false
        defer { if !undone { undo() } }
        // Under a read-only mount SQLite still reads the WAL; with immutable files it may not.
        try scene.expectRetryLater(kind: "store_read_only", readsWork: byMount ? true : nil)
        undo()
        undone = true
        try scene.expectRecovered()
    }

    @Test("A damaged database (pages overwritten in a real file): 503 / exit 75 everywhere, reads included")
    func aMalformedDatabase() throws {
        let folder = try E2E.scratchFolder("malformed")
        defer { try? FileManager.default.removeItem(at: folder) }
        let scene = try Scene(folder: folder, group: 0x5f03)
        try scene.checkpoint()
        // Everything after the first page (the header and the schema) becomes 0xA5: each
        // table's b-tree page is garbage, so the first read or write of a table fails.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: scene.path))
        let size = try handle.seekToEnd()
        let pageSize = try scene.pageSize()
        #expect(size > UInt64(pageSize), "the database has only its first page")
        try handle.seek(toOffset: UInt64(pageSize))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size) - pageSize))
        try handle.close()
        try scene.expectRetryLater(kind: "store_corrupt", readsWork: false)
    }

    @Test("A file that is not a database: 503 / exit 75 everywhere")
    func aFileThatIsNotADatabase() throws {
        let folder = try E2E.scratchFolder("not-a-db")
        defer { try? FileManager.default.removeItem(at: folder) }
        let scene = try Scene(folder: folder, group: 0x5f04)
        for file in scene.databaseFiles { try? FileManager.default.removeItem(atPath: file) }
        try Data(String(repeating: "this is a log file, not a database\n", count: 200).utf8)
            .write(to: URL(fileURLWithPath: scene.path))
        try scene.expectRetryLater(kind: "store_corrupt", readsWork: false)
    }

    // MARK: Redis

    @Test("Redis refuses the password: exit 78 from the webhook, the worker and the read path; no host, port or password in any answer",
          .enabled(if: RedisTestServer.shouldRun, "redis-server is not installed"))
    func redisWithAWrongPassword() throws {
        let server = try RedisTestServer.start(password: "the-right-pass")
        defer { server.stop() }
        let environment = E2E.environment(storeURL: "redis://:not-the-pass-9f2c@127.0.0.1:\(server.port)/0", adminToken: "x")
        let story = Scene.story(group: 0x5f05)
        let payload = try #require(try Binaries.sign(story.notifications).first)
        let leaks = ["127.0.0.1", String(server.port), "not-the-pass-9f2c", "the-right-pass", "WRONGPASS", "redis", "Redis"]

        let webhook = try Scene.deliverOverHTTP(payload, environment: environment)
        #expect(webhook.status == 500 && webhook.exitCode == 78, "\(webhook)")
        #expect(webhook.errorCode == "configuration_error", "\(webhook)")
        Scene.expectNoLeak(webhook.stdout, leaks)
        #expect(webhook.stderr.contains("store_configuration_error"), "the log says why: \(webhook.stderr)")
        #expect(!webhook.stderr.contains("not-the-pass-9f2c") && !webhook.stderr.contains("the-right-pass"), "a secret in the log: \(webhook.stderr)")

        for run in try Scene.readAndWork(environment: environment, appAccountToken: story.appAccountToken) {
            #expect(run.exitCode == 78, "\(run)")
            #expect(Scene.errorCode(run.stdout) == "configuration_error", "\(run)")
            Scene.expectNoLeak(run.stdout, leaks)
            #expect(!run.stderr.contains("not-the-pass-9f2c"), "a secret in the log: \(run.stderr)")
        }
    }

    @Test("Redis stopped: 503 / exit 75 from the webhook, the worker and the read path; no host or port in any answer",
          .enabled(if: RedisTestServer.shouldRun, "redis-server is not installed"))
    func redisStopped() throws {
        let server = try RedisTestServer.start()
        let environment = E2E.environment(storeURL: server.url(), adminToken: "x")
        server.stop()
        let story = Scene.story(group: 0x5f06)
        let payload = try #require(try Binaries.sign(story.notifications).first)
        let leaks = ["127.0.0.1", String(server.port), "refused", "redis", "Redis", "hiredis"]

        let webhook = try Scene.deliverOverHTTP(payload, environment: environment)
        #expect(webhook.status == 503 && webhook.exitCode == 75, "\(webhook)")
        Scene.expectGenericRetry(webhook.stdout, leaks)
        #expect(webhook.stderr.contains("store_unavailable") && webhook.stderr.contains(String(server.port)), "the log says why: \(webhook.stderr)")

        for run in try Scene.readAndWork(environment: environment, appAccountToken: story.appAccountToken) {
            #expect(run.exitCode == 75, "\(run)")
            Scene.expectGenericRetry(run.stdout, leaks)
        }
    }
}

/// How the function processes of a fault case are started.
enum FaultRunner {
    /// As they are.
    case plain
    /// Under prlimit, with a file-size limit no store file may grow past (the full-disk
    /// stand-in where nothing can be mounted).
    case limited(String, bytes: UInt64)

    static let prlimit: String? = ["/usr/bin/prlimit", "/bin/prlimit"].first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// One SQLite fault case: a store in `folder` that already holds two accepted, queued
/// notifications of a story whose third is delivered while the fault lasts.
struct Scene {
    let folder: URL
    let path: String
    let environment: [String: String]
    let story: LifecycleSimulator
    let signed: [String]

    init(folder: URL, group: Int) throws {
        self.folder = folder
        path = folder.appendingPathComponent("storekeeper.db").path
        environment = E2E.environment(storeURL: "sqlite:" + path, adminToken: "x")
        story = Self.story(group: group)
        signed = try Binaries.sign(story.notifications)
        let queued = try Binaries.receive(Array(signed.prefix(2)), environment: environment)
        guard queued.answers == ["accepted", "accepted"], queued.exitCode == 0 else {
            throw Binaries.Failure("setting up: \(queued)")
        }
    }

    static func story(group: Int) -> LifecycleSimulator {
        var story = LifecycleSimulator(originalTransactionId: "30000\(group)", group: group,
                                      start: E2E.nowMilliseconds - 60_000)
        story.subscribe()
        story.renew()
        story.renew()
        return story
    }

    var databaseFiles: [String] { [path, path + "-wal", path + "-shm"] }

    /// During the fault: the third notification is refused with 503 / exit 75 (Apple will
    /// retry), the worker exits 75, and the read path answers (readsWork) or exits 75. `kind`
    /// is what the log must call the failure; every answer is the same generic one.
    func expectRetryLater(kind: String?, readsWork: Bool? = true, runner: FaultRunner = .plain) throws {
        let leaks = [path, folder.path, folder.lastPathComponent, "sqlite", "SQLite", "result code", "malformed",
                     "not a database", "readonly", "read-only", "disk is full", "store_full", "store_read_only",
                     "store_corrupt", "store_error"]
        let webhook = try Self.deliverOverHTTP(signed[2], environment: environment, runner: runner)
        #expect(webhook.status == 503 && webhook.exitCode == 75, "\(webhook)")
        Self.expectGenericRetry(webhook.stdout, leaks)
        if let kind {
            #expect(webhook.stderr.contains(#""code":"\#(kind)""#), "the log names the fault: \(webhook.stderr)")
        }
        #expect(webhook.stderr.contains("SQLite result code"), "the log carries SQLite's own words: \(webhook.stderr)")

        let runs = try Self.readAndWork(environment: environment, appAccountToken: story.appAccountToken, runner: runner)
        let (read, worker) = (runs[0], runs[1])
        #expect(worker.exitCode == 75, "\(worker)")
        Self.expectGenericRetry(worker.stdout, leaks)
        switch readsWork {
        case true?:
            #expect(read.exitCode == 0, "\(read)")
        case false?:
            #expect(read.exitCode == 75, "\(read)")
            Self.expectGenericRetry(read.stdout, leaks)
        case nil:
            #expect(read.exitCode == 0 || read.exitCode == 75, "\(read)")
            if read.exitCode != 0 { Self.expectGenericRetry(read.stdout, leaks) }
        }
    }

    /// After the fault: the third notification is accepted, and one worker run applies all
    /// three with nothing failed or dead-lettered.
    func expectRecovered() throws {
        let retried = try Binaries.receive([signed[2]], environment: environment)
        #expect(retried.answers == ["accepted"] && retried.exitCode == 0, "\(retried)")
        let run = try Binaries.process(environment: environment)
        #expect(run.exitCode == 0, "\(run)")
        #expect(run.report?.applied == 3 && run.report?.failed == 0 && run.report?.deadLettered == 0
                && run.report?.remaining == 0, "\(run)")
    }

    /// Folds the WAL into the database file and removes it (Python's sqlite3: a second,
    /// independent implementation), so the file holds every page.
    func checkpoint() throws {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c",
                            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.execute('PRAGMA journal_mode = DELETE'); c.close()",
                            path]
        try python.run()
        python.waitUntilExit()
        guard python.terminationStatus == 0 else { throw Binaries.Failure("python3 could not checkpoint \(path)") }
    }

    /// The page size from the database header (bytes 16-17, big-endian; 1 means 65536).
    func pageSize() throws -> Int {
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(100)
        let raw = Int(header[16]) << 8 | Int(header[17])
        return raw == 1 ? 65_536 : raw
    }

    func largestFileSize() throws -> UInt64 {
        try databaseFiles.map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? UInt64) ?? 0 }.max() ?? 0
    }

    // MARK: Running the binaries

    struct Run: CustomStringConvertible {
        var function: String
        var status: Int?
        var stdout: String
        var stderr: String
        var exitCode: Int32
        var errorCode: String? { Scene.errorCode(stdout) }
        var description: String { "\(function): exit \(exitCode), status \(status.map(String.init) ?? "-"): \(stdout) | \(stderr.suffix(1500))" }
    }

    /// POSTs the payload as an HTTP event (the serverless door), so the answer carries the
    /// status Apple would see; `stdout` is then the HTTP body.
    static func deliverOverHTTP(_ payload: String, environment: [String: String], runner: FaultRunner = .plain) throws -> Run {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["signedPayload": payload]), as: UTF8.self)
        let event: [String: Any] = [
            "version": "2.0", "rawPath": "/appstore/notifications", "rawQueryString": "",
            "headers": ["content-type": "application/json"],
            "requestContext": ["http": ["method": "POST", "path": "/appstore/notifications"]],
            "body": body, "isBase64Encoded": false,
        ]
        let result = try run("receive-notification", try JSONSerialization.data(withJSONObject: event), environment, runner)
        let answer = (try? JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]) ?? [:]
        return Run(function: "receive-notification (HTTP event)", status: answer["statusCode"] as? Int,
                   stdout: answer["body"] as? String ?? result.stdoutText, stderr: result.stderrText, exitCode: result.exitCode)
    }

    /// `get-entitlements` then `process-notifications`, both at the direct door (cron, shell).
    static func readAndWork(environment: [String: String], appAccountToken: String, runner: FaultRunner = .plain) throws -> [Run] {
        var runs: [Run] = []
        for (function, request) in [("get-entitlements", ["appAccountToken": appAccountToken]),
                                    ("process-notifications", ["budgetSeconds": 20] as [String: Any])] {
            let result = try run(function, try JSONSerialization.data(withJSONObject: request), environment, runner)
            runs.append(Run(function: function, status: nil, stdout: result.stdoutText, stderr: result.stderrText, exitCode: result.exitCode))
        }
        return runs
    }

    private static func run(_ function: String, _ stdin: Data, _ environment: [String: String],
                            _ runner: FaultRunner) throws -> FunctionBinary.Result {
        guard case .limited(let prlimit, let bytes) = runner else {
            return try FunctionBinary(name: function).run(stdin: stdin, environment: environment)
        }
        // SIGXFSZ ignored (an ignored signal stays ignored across exec), so a write past the
        // limit fails with EFBIG instead of killing the function.
        let binary = FunctionBinary(name: function)
        return try binary.run(stdin: stdin, environment: environment, launcher: (
            "/bin/sh", ["-c", #"trap '' XFSZ; exec "$0" --fsize="$1" -- "$2""#, prlimit, String(bytes), binary.url.path]))
    }

    // MARK: What an answer may say

    static func errorCode(_ text: String) -> String? {
        let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
        return (object["error"] as? [String: Any])?["code"] as? String
    }

    /// Exactly the generic retry answer, and nothing of the store.
    static func expectGenericRetry(_ text: String, _ leaks: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
        let error = object["error"] as? [String: Any]
        #expect(error?["code"] as? String == "store_unavailable", "\(text)", sourceLocation: sourceLocation)
        #expect(error?["message"] as? String == "the store is unavailable; retry later", "\(text)", sourceLocation: sourceLocation)
        #expect(object.keys.sorted() == ["error"], "the answer carries only the error: \(text)", sourceLocation: sourceLocation)
        expectNoLeak(text, leaks, sourceLocation: sourceLocation)
    }

    static func expectNoLeak(_ text: String, _ leaks: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for leak in leaks where text.contains(leak) {
            Issue.record("the answer names '\(leak)': \(text)", sourceLocation: sourceLocation)
        }
    }
}

/// Real file-system faults, made with mount(8) (we run as root in CI's container, when it
/// allows mounts), and always undone.
enum Mounts {
    /// Runs mount/umount/chattr; the exit status and what it printed.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do { try process.run() } catch { return (-1, "\(tool): \(error)") }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: printed, as: UTF8.self))
    }

    /// Mounts a tmpfs of `size` on `folder`; nil when done, else why not.
    static func tmpfs(at folder: URL, size: String) -> String? {
        let result = run("mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", folder.path])
        return result.status == 0 ? nil : "mount -t tmpfs: exit \(result.status): \(result.output)"
    }

    /// Lazily, so a process still holding a file cannot keep the mount alive; a folder that
    /// is not a mount point is left as it is.
    static func unmount(_ folder: URL) {
        run("umount", ["-l", folder.path])
    }

    /// Writes zeros to `file` until the file system refuses (ENOSPC).
    static func fill(_ file: URL) {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0, count: 4096)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Makes `folder` read-only for every process, root included: a read-only bind mount of
    /// the folder onto itself, or else the immutable attribute on the store's files (root
    /// ignores permission bits, not these). Returns how to undo it, or nil (with the reason
    /// printed) when neither is allowed here.
    static func makeReadOnly(_ folder: URL, files: [String]) -> (undo: () -> Void, byMount: Bool)? {
        let bind = run("mount", ["--bind", folder.path, folder.path])
        if bind.status == 0 {
            let remount = run("mount", ["-o", "remount,bind,ro", folder.path, folder.path])
            if remount.status == 0 { return ({ unmount(folder) }, true) }
            unmount(folder)
        }
        let existing = files.filter { FileManager.default.fileExists(atPath: $0) } + [folder.path]
        let immutable = run("chattr", ["+i"] + existing)
        if immutable.status == 0 { return ({ run("chattr", ["-i"] + existing) }, false) }
        run("chattr", ["-i"] + existing)
        print("StoreFaultTests: aReadOnlyDatabase skipped: neither a read-only bind mount (\(bind.output)) nor chattr +i (\(immutable.output)) is allowed here")
        return nil
    }
}
