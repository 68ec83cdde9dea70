import Foundation
@testable import RedisStore
import StorekeeperCore
import TestSupport
import Testing

/// What is specific to the Redis adapter, against a real redis-server (one per test):
/// connection failures and timeouts, URLs, logins, databases, the script cache, the key
/// layout and its hash tags. The behaviour every store shares is KeyValueStoreConformanceTests,
/// which runs on Redis too (StoreBackend.redis).
@Suite("RedisStore", .enabled(if: RedisTestServer.shouldRun,
                              "redis-server is not installed (apt-get install redis-server); with CI set this fails instead"))
struct RedisStoreTests {
    // MARK: Values

    @Test func versionsCountEveryWrite() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())

        #expect(try store.get("v") == nil)
        try store.set("v", [1], expiresIn: nil)
        #expect(try store.get("v") == StoredValue(bytes: [1], version: 1))
        try store.set("v", [2], expiresIn: nil)
        #expect(try store.get("v") == StoredValue(bytes: [2], version: 2))
        #expect(try store.compareAndSet("v", [3], expectedVersion: 2, expiresIn: nil))
        #expect(try store.get("v") == StoredValue(bytes: [3], version: 3))
        #expect(try !store.compareAndSet("v", [4], expectedVersion: 2, expiresIn: nil))
        #expect(try !store.compareAndSet("v", [4], expectedVersion: nil, expiresIn: nil))
        #expect(try store.get("v")?.bytes == [3])

        #expect(try store.delete("v"))
        #expect(try !store.delete("v"))
        #expect(try store.compareAndSet("v", [5], expectedVersion: nil, expiresIn: nil))
        #expect(try store.get("v") == StoredValue(bytes: [5], version: 1))
    }

    @Test func bytesSurviveExactly() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        let binary: [UInt8] = [0, 255, 13, 10, 0, 42] + Array(repeating: 7, count: 100_000)
        try store.set("binary", binary, expiresIn: nil)
        try store.set("empty", [], expiresIn: nil)
        #expect(try store.get("binary")?.bytes == binary)
        #expect(try store.get("empty") == StoredValue(bytes: [], version: 1))
        let odd = "schlüssel {mit} klammern \u{0} und null"
        #expect(try store.setIfAbsent(odd, [1], expiresIn: nil))
        #expect(try store.get(odd)?.bytes == [1])
    }

    @Test func expiryUsesPXAndVersionsRestart() async throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())

        // Whole milliseconds reach Redis (PX): the absolute expiry it keeps (PEXPIRETIME) lies
        // 60.15 s after the write, read against the clock before and after it. EX would put it
        // a whole second off. A long expiry, because nothing asserts that a short one is still
        // alive: PTTL on a 150 ms key raced a loaded machine (and answered -2, gone).
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        try store.set("precise", [1], expiresIn: .milliseconds(60_150))
        #expect(try store.setIfAbsent("dedup", [1], expiresIn: .milliseconds(60_150)))
        let after = Int64(Date().timeIntervalSince1970 * 1000)
        for key in ["precise", "dedup"] {
            let expiry = try store.run(["PEXPIRETIME", key], "test")
            guard case .integer(let expiresAt) = expiry else { Issue.record("PEXPIRETIME \(key) answered \(expiry)"); continue }
            #expect((before + 60_150 - 1...after + 60_150 + 1).contains(expiresAt),
                    "\(key) expires at \(expiresAt), written between \(before) and \(after)")
        }
        #expect(try !store.setIfAbsent("dedup", [2], expiresIn: .milliseconds(150)))

        // Short expiries, slept past: gone, and the names free again.
        try store.set("short", [1], expiresIn: .milliseconds(150))
        #expect(try store.setIfAbsent("short-dedup", [1], expiresIn: .milliseconds(150)))
        try await Task.sleep(for: .milliseconds(250))
        #expect(try store.get("short") == nil)
        #expect(try store.setIfAbsent("short-dedup", [3], expiresIn: nil))
        #expect(try store.compareAndSet("short", [4], expectedVersion: nil, expiresIn: nil))
        #expect(try store.get("short") == StoredValue(bytes: [4], version: 1))

        // A write without an expiry makes the key permanent again.
        try store.set("short", [5], expiresIn: .seconds(60))
        try store.set("short", [6], expiresIn: nil)
        #expect(try store.run(["PTTL", "short"], "test") == .integer(-1))
    }

    // MARK: Types

    @Test func aKeyIsAValueOrASetNotBoth() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        try store.set("both", [1], expiresIn: nil)
        #expect(throws: StoreError(.failed, "")) { try store.addToSet("both", "x") }
        #expect(try store.get("both")?.bytes == [1])
    }

    // MARK: Queues

    @Test func claimsByPriorityThenAge() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        let jobs = [
            QueuedJob(id: "a", payload: [1], priority: 1),
            QueuedJob(id: "b", payload: [2], priority: 0),
            QueuedJob(id: "c", payload: [3], priority: 1),
            QueuedJob(id: "d", payload: [4], priority: 0),
            QueuedJob(id: "e", payload: [5], priority: -5),
            QueuedJob(id: "f", payload: [6], priority: .max, maxAttempts: .max),
            QueuedJob(id: "g", payload: [7], priority: .min, maxAttempts: 3),
        ]
        for job in jobs { #expect(try store.enqueue(job, on: "work")) }
        #expect(try store.pendingCount(in: "work") == 7)

        var claimed: [ClaimedJob] = []
        while let next = try store.claim(from: "work", lease: .seconds(30)) { claimed.append(next) }
        #expect(claimed.map(\.job.id) == ["g", "e", "b", "d", "a", "c", "f"])
        // What comes back is exactly what went in.
        let byID = Dictionary(uniqueKeysWithValues: jobs.map { ($0.id, $0) })
        for job in claimed {
            #expect(job.job == byID[job.job.id])
            #expect(job.attempt == 1)
            #expect(job.queue == "work")
            #expect(job.leaseToken.count == 32)
        }
        #expect(Set(claimed.map(\.leaseToken)).count == claimed.count)
        #expect(try store.pendingCount(in: "work") == 7)
        for job in claimed { #expect(try store.acknowledge(job)) }
        #expect(try store.pendingCount(in: "work") == 0)
        #expect(try store.claim(from: "work", lease: .seconds(30)) == nil)
    }

    @Test func forgedLeaseTokensAreRefused() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        let job = QueuedJob(id: "j", payload: [])
        try store.enqueue(job, on: "q")
        // '-' is what the metadata holds while nobody has a lease.
        for token in ["-", "", "not hex"] {
            let forged = ClaimedJob(queue: "q", job: job, attempt: 1, leaseToken: token)
            #expect(try !store.acknowledge(forged))
            #expect(try !store.release(forged, retryIn: .zero))
        }
        #expect(try store.pendingCount(in: "q") == 1)
    }

    @Test func setIfAbsentAndEnqueueIsOneStepInOneHashSlot() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        let job = QueuedJob(id: "uuid-1", payload: [1], priority: 0)

        #expect(try store.setIfAbsentAndEnqueue("{notifications}:n:uuid-1", [42], expiresIn: nil, job: job, on: "{notifications}"))
        #expect(try !store.setIfAbsentAndEnqueue("{notifications}:n:uuid-1", [43], expiresIn: nil, job: job, on: "{notifications}"))
        #expect(try store.get("{notifications}:n:uuid-1") == StoredValue(bytes: [42], version: 1))
        #expect(try store.pendingCount(in: "{notifications}") == 1)
        // An untagged queue name gets the tag: `notifications` is the same queue.
        #expect(try store.pendingCount(in: "notifications") == 1)
        let job2 = QueuedJob(id: "uuid-2", payload: [2])
        #expect(try store.setIfAbsentAndEnqueue("{notifications}:n:uuid-2", [1], expiresIn: .seconds(60), job: job2, on: "notifications"))
        #expect(try store.pendingCount(in: "{notifications}") == 2)

        // Different hash slots: refused, and nothing written.
        let refused = #expect(throws: StoreError(.failed, "")) {
            try store.setIfAbsentAndEnqueue("n:uuid-3", [1], expiresIn: nil, job: QueuedJob(id: "uuid-3", payload: []), on: "{notifications}")
        }
        #expect(refused?.reason.contains("hash tag") == true)
        #expect(try store.get("n:uuid-3") == nil)
        #expect(try store.pendingCount(in: "{notifications}") == 2)

        let claimed = try #require(try store.claim(from: "{notifications}", lease: .seconds(30)))
        #expect(claimed.job == job)
    }

    @Test func everyQueueKeyCarriesTheQueuesHashTag() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        try store.enqueue(QueuedJob(id: "x", payload: [1], maxAttempts: 1), on: "mail")
        try store.enqueue(QueuedJob(id: "y", payload: [1]), on: "mail")
        let claimed = try #require(try store.claim(from: "mail", lease: .seconds(30)))
        try store.release(claimed, retryIn: .zero)
        let keys = try RedisStore.strings(store.run(["KEYS", "*"], "test"), "test").sorted()
        #expect(keys == ["{mail}:dead", "{mail}:enqueued", "{mail}:jobs", "{mail}:meta", "{mail}:ready", "{mail}:sequence"])
        for key in keys { #expect(QueueKeys.slotName(of: key) == Array("mail".utf8)) }
    }

    @Test func everyLogKeyCarriesTheLogsHashTag() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        for index in 1...3 {
            _ = try store.appendToLog("{events}", LogAppend(id: "e-\(index)", stream: index == 2 ? nil : "user-1",
                                                            expectedStreamVersion: index == 3 ? 1 : 0, recordedAt: Int64(index), bytes: [1]))
        }
        #expect(try store.trimLog("{events}", recordedBefore: 2, limit: 10) == 1)
        let keys = try RedisStore.strings(store.run(["KEYS", "*"], "test"), "test").sorted()
        #expect(keys == ["{events}:entries", "{events}:ids", "{events}:last", "{events}:meta", "{events}:streams", "{events}:trimmed"])
        for key in keys { #expect(QueueKeys.slotName(of: key) == Array("events".utf8)) }
        // A name without a tag gets one: `events` and `{events}` are one log.
        #expect(try store.logBounds("events") == LogBounds(first: 2, last: 3))
        // Each log entry is one field of each hash, by decimal sequence: no key per entry.
        #expect(try store.run(["HKEYS", "{events}:entries"], "test") == .array([.string(Array("2".utf8)), .string(Array("3".utf8))]))
    }

    @Test func unreadableLogMetadataIsAFailureNotAGuess() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        _ = try store.appendToLog("{events}", LogAppend(id: "e-1", stream: nil, expectedStreamVersion: 0, recordedAt: 1, bytes: [1]))
        _ = try store.run(["HSET", "{events}:meta", "1", "garbage"], "test")
        #expect(throws: StoreError.self) { try store.readLog("{events}", after: 0, limit: 10) }
        #expect(throws: StoreError.self) { try store.trimLog("{events}", recordedBefore: 10, limit: 10) }
        #expect(try store.logBounds("{events}") == LogBounds(first: 1, last: 1), "nothing was trimmed")
    }

    // MARK: Connections

    @Test func aClosedPortIsUnavailableAtOnce() throws {
        let port = try RedisTestServer.freePort()
        // "At once" means "not after the timeout": with a minute to wait, a refusal that took
        // half of it was waited for. No bound on how fast a loaded machine must be.
        let started = ContinuousClock.now
        #expect(throws: StoreError(.unavailable, "")) { try RedisStore(url: "redis://127.0.0.1:\(port)/0", timeout: .seconds(60)) }
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    /// maxmemory reached with eviction off (as DESIGN.md asks): `-OOM command not allowed`.
    @Test func aFullServerIsFullAndRetryable() throws {
        let server = try RedisTestServer.start(arguments: ["--maxmemory", "4mb", "--maxmemory-policy", "noeviction"])
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        let value = [UInt8](repeating: 1, count: 256 << 10)
        var refusal: StoreError?
        // 4 MB fills within a few dozen writes; the bound only keeps a broken server from looping.
        for index in 0..<400 where refusal == nil {
            do { try store.set("big\(index)", value, expiresIn: nil) } catch { refusal = error }
        }
        #expect(refusal?.kind == .full && refusal?.disposition == .retryLater, "\(String(describing: refusal))")
        // Reads still work, and room again means writes again.
        #expect(try store.get("big0")?.bytes == value)
        try store.delete("big0")
        try store.delete("big1")
        try store.set("small", [1], expiresIn: nil)
    }

    /// A replica (STORE_URL pointing at the wrong node after a failover) refuses writes.
    @Test func aReplicaIsReadOnlyAndRetryable() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        try store.set("k", [1], expiresIn: nil)
        // A primary that does not exist: the server turns replica and stays read-only.
        _ = try store.run(["REPLICAOF", "127.0.0.1", String(try RedisTestServer.freePort())], "test")
        let error = #expect(throws: StoreError.self) { try store.set("k", [2], expiresIn: nil) }
        #expect(error?.kind == .readOnly && error?.disposition == .retryLater, "\(String(describing: error))")
    }

    /// By the error reply's first word, never by its text.
    @Test(arguments: [
        ("OOM", StoreError.Kind.full), ("READONLY", .readOnly), ("LOADING", .unavailable), ("BUSY", .unavailable),
        ("MASTERDOWN", .unavailable), ("TRYAGAIN", .unavailable), ("CLUSTERDOWN", .unavailable),
        ("MISCONF", .unavailable), ("NOAUTH", .invalidConfiguration), ("WRONGPASS", .invalidConfiguration),
        ("NOPERM", .invalidConfiguration), ("WRONGTYPE", .failed), ("ERR", .failed),
    ] as [(String, StoreError.Kind)])
    func serverErrorsAreClassifiedByTheirCode(_ code: String, _ kind: StoreError.Kind) {
        let error = StoreError.fromServer("\(code) something went wrong", code: Substring(code), during: "test")
        #expect(error.kind == kind)
        #expect(error.disposition == (kind == .invalidConfiguration ? .configuration : .retryLater))
    }

    @Test func aServerStoppedBetweenCallsIsUnavailableThenComesBack() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        try store.set("k", [1], expiresIn: nil)
        server.stop()
        #expect(throws: StoreError(.unavailable, "")) { try store.get("k") }
        #expect(throws: StoreError(.unavailable, "")) { try store.enqueue(QueuedJob(id: "j", payload: []), on: "q") }
        try server.restart()
        // The store connects afresh; the data is gone because this server keeps none.
        #expect(try store.get("k") == nil)
        #expect(try store.enqueue(QueuedJob(id: "j", payload: []), on: "q"))
    }

    @Test func aKilledServerIsUnavailableEvenForALargeWrite() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        try store.set("k", [1], expiresIn: nil)
        server.kill()
        // Several MB to a dead socket: without SIGPIPE blocked this would kill the test process.
        for _ in 0..<3 {
            #expect(throws: StoreError(.unavailable, "")) { try store.set("big", [UInt8](repeating: 1, count: 8 << 20), expiresIn: nil) }
        }
    }

    @Test func aConnectionLostMidCommandIsUnavailable() throws {
        let server = try RedisTestServer.start(arguments: ["--enable-debug-command", "yes"])
        defer { server.stop() }
        // A minute to time out and a minute of DEBUG SLEEP: well past 30 s, the answer was
        // neither the loss (noticed when it happens) nor a hang.
        let store = try RedisStore(url: server.url(), timeout: .seconds(60))
        // The server dies while it is busy with our command, so the reply never comes. The
        // kill comes from a dispatch thread: the test threads may all be busy blocking.
        let killed = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(300)) {
            server.kill()
            killed.signal()
        }
        let started = ContinuousClock.now
        #expect(throws: StoreError(.unavailable, "")) { try store.run(["DEBUG", "SLEEP", "60"], "test") }
        #expect(ContinuousClock.now - started < .seconds(30))
        killed.wait()
    }

    @Test func aHungServerTimesOutInsteadOfHanging() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url(), timeout: .milliseconds(300))
        try store.set("k", [1], expiresIn: nil)
        server.pause()
        // The bounds say "timed out, did not hang" (a hang is for ever), not how fast: far
        // above the 300 ms timeout, so a loaded machine meets them.
        var started = ContinuousClock.now
        let error = #expect(throws: StoreError(.unavailable, "")) { try store.get("k") }
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(error?.isRetryable == true)
        // A new store whose login must wait for the server times out too (connect + SELECT).
        started = ContinuousClock.now
        #expect(throws: StoreError(.unavailable, "")) { try RedisStore(url: server.url(database: 1), timeout: .milliseconds(300)) }
        #expect(ContinuousClock.now - started < .seconds(20))
        server.resume()
        #expect(try store.get("k")?.bytes == [1])
    }

    @Test func malformedURLsAreConfigurationErrors() {
        let malformed = [
            "", "redis:/127.0.0.1", "http://127.0.0.1:6379", "redis://", "redis://:6379", "redis://host:port",
            "redis://host:0", "redis://host:65536", "redis://host:-1", "redis://host/abc", "redis://host/1/2",
            "redis://host/-1", "redis://user@host", "redis://:@host", "redis://host?db=1", "redis://host#x",
            "rediss://", "rediss://host?ssl=1", "redis://::1:6379", "redis://ho st", "redis://:pa%zzss@host", "redis://[::1",
            "unix:///tmp/redis.sock",
        ]
        // Refused before connecting: a connection attempt (to "host", or to a port nobody
        // listens on) would end as .unavailable, so the code alone proves it; no stopwatch.
        for url in malformed {
            #expect(throws: StoreError(.invalidConfiguration, ""), "\(url) must fail before connecting") { try RedisStore(url: url) }
        }
        #expect(throws: StoreError(.invalidConfiguration, "")) { try RedisStore(url: "redis://127.0.0.1", timeout: .zero) }
    }

    @Test func urlsParse() throws {
        #expect(try RedisURL(parsing: "redis://127.0.0.1") == RedisURL(host: "127.0.0.1"))
        #expect(try RedisURL(parsing: "REDIS://cache.internal:6380/") == RedisURL(host: "cache.internal", port: 6380))
        #expect(try RedisURL(parsing: "redis://:p%40ss%2Fw0rd@h:7/3") == RedisURL(host: "h", port: 7, password: "p@ss/w0rd", database: 3))
        #expect(try RedisURL(parsing: "redis://:p@ss@h/1") == RedisURL(host: "h", password: "p@ss", database: 1))
        #expect(try RedisURL(parsing: "redis://worker:pw@[::1]:7000/2") == RedisURL(host: "::1", port: 7000, username: "worker", password: "pw", database: 2))
        #expect(try RedisURL(parsing: "redis://:secret@h/1").redacted == "redis://:[redacted]@h:6379/1")
        #expect(try RedisURL(parsing: "redis://h").usesTLS == false)
        #expect(try RedisURL(parsing: "rediss://worker:pw@redis.example:6380/4")
            == RedisURL(host: "redis.example", port: 6380, username: "worker", password: "pw", database: 4, usesTLS: true))
        #expect(try RedisURL(parsing: "REDISS://:secret@[::1]/1").redacted == "rediss://:[redacted]@[::1]:6379/1")
    }

    @Test func aPasswordProtectedServer() throws {
        let server = try RedisTestServer.start(password: "s3cret-pass")
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        try store.set("k", [1], expiresIn: nil)
        #expect(try store.get("k")?.bytes == [1])

        // No password: the login is only attempted when there is something to send, so the
        // refusal comes with the first command; either way it is a configuration error.
        let anonymous = try RedisStore(url: server.url(includePassword: false))
        #expect(throws: StoreError(.invalidConfiguration, "")) { try anonymous.get("k") }
        #expect(throws: StoreError(.invalidConfiguration, "")) { try RedisStore(url: server.url(database: 1, includePassword: false)) }

        let wrong = #expect(throws: StoreError(.invalidConfiguration, "")) {
            try RedisStore(url: "redis://:not-the-password@127.0.0.1:\(server.port)/0")
        }
        #expect(wrong?.reason.contains("not-the-password") == false)

        // A Redis 6 ACL user: AUTH user password.
        _ = try store.run(["ACL", "SETUSER", "worker", "on", ">worker-pass", "~*", "+@all"], "test")
        let worker = try RedisStore(url: "redis://worker:worker-pass@127.0.0.1:\(server.port)/0")
        #expect(try worker.get("k")?.bytes == [1])
        #expect(throws: StoreError(.invalidConfiguration, "")) {
            try RedisStore(url: "redis://worker:s3cret-pass@127.0.0.1:\(server.port)/0")
        }
    }

    @Test func aDatabaseOtherThanZero() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let three = try RedisStore(url: server.url(database: 3))
        let zero = try RedisStore(url: server.url())
        try three.set("k", [3], expiresIn: nil)
        try three.enqueue(QueuedJob(id: "j", payload: []), on: "q")
        #expect(try zero.get("k") == nil)
        #expect(try zero.pendingCount(in: "q") == 0)
        #expect(try RedisStore(url: server.url(database: 3)).get("k")?.bytes == [3])
        #expect(throws: StoreError(.invalidConfiguration, "")) { try RedisStore(url: server.url(database: 99)) }
    }

    // MARK: Scripts

    @Test func scriptsAreNamedAsRedisNamesThem() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        let scripts: [RedisScript] = [.writeValue, .enqueue, .setIfAbsentAndEnqueue, .claim, .acknowledge, .release, .pendingCount,
                                      .appendToLog, .readLog, .trimLog]
        for script in scripts {
            let loaded = try store.run(["SCRIPT", "LOAD", script.source], "test")
            #expect(loaded == .string(Array(script.sha1.utf8)), "\(script.name)")
        }
        #expect(SHA1.hexDigest(Array("abc".utf8)) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(SHA1.hexDigest([]) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(SHA1.hexDigest(Array(repeating: UInt8(ascii: "a"), count: 1_000)) == "291e9a6c66994949b57ba5e650361e98fc36b1ba")
    }

    @Test func aFlushedScriptCacheIsRefilled() throws {
        let server = try RedisTestServer.start()
        defer { server.stop() }
        let store = try RedisStore(url: server.url())
        try store.set("k", [1], expiresIn: nil)
        _ = try store.run(["SCRIPT", "FLUSH"], "test")
        #expect(try store.run(["SCRIPT", "EXISTS", RedisScript.writeValue.sha1], "test") == .array([.integer(0)]))
        try store.set("k", [2], expiresIn: nil)
        #expect(try store.get("k") == StoredValue(bytes: [2], version: 2))
        #expect(try store.run(["SCRIPT", "EXISTS", RedisScript.writeValue.sha1], "test") == .array([.integer(1)]))
    }
}
