import Foundation
import Testing
import TestSupport

/// doctor through the built binary: a whole, good deployment is all ok and exits 0; each kind
/// of fault is its named problem and exit 78; the store is the same byte for byte (SQLite) or
/// by its digest and the commands it saw (Redis) afterwards; no secret reaches the output.
@Suite("doctor: a deployment checked end to end, nothing changed", .serialized)
struct DoctorBinaryTests {
    static let adminToken = "doctor-admin-" + UUID().uuidString
    static let supportToken = "doctor-support-" + UUID().uuidString
    static let pki = FunctionBinary.repositoryRoot.appendingPathComponent("Tests/Fixtures/pki")

    /// One doctor run: its answer, exit status and both streams.
    struct Run: CustomStringConvertible {
        var answer: [String: Any]
        var exit: Int32
        var stdout: String
        var stderr: String

        var checks: [[String: Any]] { answer["checks"] as? [[String: Any]] ?? [] }
        func status(_ name: String) -> String? { checks.first { $0["name"] as? String == name }?["status"] as? String }
        func detail(_ name: String) -> String { checks.first { $0["name"] as? String == name }?["detail"] as? String ?? "" }
        var problems: [String] { checks.filter { $0["status"] as? String == "problem" }.compactMap { $0["name"] as? String } }
        var description: String { "exit \(exit)\n\(stdout)\n\(stderr.suffix(2000))" }
    }

    static func doctor(_ environment: [String: String], request: [String: Any] = [:], arguments: [String] = []) throws -> Run {
        let result = try FunctionBinary(name: "doctor").run(
            stdin: try JSONSerialization.data(withJSONObject: request), environment: environment, arguments: arguments)
        let answer = (try? JSONSerialization.jsonObject(with: result.stdout)) as? [String: Any] ?? [:]
        return Run(answer: answer, exit: result.exitCode, stdout: result.stdoutText, stderr: result.stderrText)
    }

    /// Every setting doctor checks, set right: the test PKI's root, the App Store Server API,
    /// Sign in with Apple and offer keys of the fixtures, both kinds of token, Apple at the fake.
    static func goodEnvironment(storeURL: String, apple: FakeAppStore) -> [String: String] {
        var environment = E2E.environment(storeURL: storeURL, adminToken: adminToken)
        environment["STOREKEEPER_TOKENS"] = "support:support:" + supportToken
        environment["APPSTORE_KEY_ID"] = FakeAppStore.keyId
        environment["APPSTORE_ISSUER_ID"] = FakeAppStore.issuerId
        environment["APPSTORE_PRIVATE_KEY"] = FakeAppStore.apiKeyPath
        environment["APPSTORE_API_BASE_URL"] = apple.baseURL
        environment["SIWA_TEAM_ID"] = "TEAMID1234"
        environment["SIWA_CLIENT_IDS"] = "com.example.storekeeper.web, com.example.storekeeper"
        environment["SIWA_KEY_ID"] = "SIWAKEY123"
        environment["SIWA_PRIVATE_KEY"] = pki.appendingPathComponent("siwa-key.p8").path
        environment["APPSTORE_OFFER_KEY_ID"] = "OFFERKEY12"
        environment["APPSTORE_OFFER_PRIVATE_KEY"] = pki.appendingPathComponent("subscription-offer-key.p8").path
        return environment
    }

    /// The secrets of `environment`: no doctor output may hold any of them.
    static func secrets(_ environment: [String: String]) throws -> [String] {
        var secrets = [adminToken, supportToken]
        for variable in ["APPSTORE_PRIVATE_KEY", "SIWA_PRIVATE_KEY", "APPSTORE_OFFER_PRIVATE_KEY"] {
            guard let path = environment[variable], let pem = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            // Each base64 line of the key's body.
            secrets += pem.split(separator: "\n").filter { !$0.hasPrefix("-----") && $0.count > 16 }.map(String.init)
        }
        return secrets
    }

    static func expectNoSecret(_ run: Run, _ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in secrets {
            #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret), "a secret in doctor's output", sourceLocation: sourceLocation)
        }
    }

    /// The SQLite store's bytes: the database and its write-ahead log, as the other functions
    /// leave them (the -shm index is shared memory, rewritten by any reader).
    static func storeBytes(_ path: String) -> [Data?] {
        [path, path + "-wal"].map { FileManager.default.contents(atPath: $0) }
    }

    /// A store the functions have used: one notification received (schema, layout mark, records).
    static func usedStore(in folder: URL, environment: (String) -> [String: String]) throws -> String {
        let path = folder.appendingPathComponent("storekeeper.db").path
        let payload = try #require(try Binaries.sign(Scene.story(group: 0xD0C7).notifications).first)
        let received = try Binaries.receive([payload], environment: environment("sqlite:" + path))
        #expect(received.exitCode == 0 && received.answers == ["accepted"], "\(received)")
        return path
    }

    @Test("A whole deployment: every check ok, exit 0, the store byte for byte the same, no secret in the output")
    func goodDeploymentIsAllOK() throws {
        let folder = try E2E.scratchFolder("doctor")
        defer { try? FileManager.default.removeItem(at: folder) }
        let apple = try FakeAppStore.start()
        defer { apple.stop() }
        let path = try Self.usedStore(in: folder) { Self.goodEnvironment(storeURL: $0, apple: apple) }
        let environment = Self.goodEnvironment(storeURL: "sqlite:" + path, apple: apple)
        let gateway = try Gateway.start(environment: environment)
        defer { gateway.stop() }

        let before = Self.storeBytes(path)
        let run = try Self.doctor(environment, request: ["notificationURL": gateway.baseURL + "/appstore/notifications"])
        #expect(Self.storeBytes(path) == before, "doctor changed the store")
        #expect(run.exit == 0 && run.answer["ok"] as? Bool == true, "\(run)")
        let names = run.checks.compactMap { $0["name"] as? String }
        #expect(names == ["roots", "app-store-api-key", "sign-in-with-apple-key", "offer-key", "catalog", "tokens", "store",
                          "store-integrity", "store-journal", "store-disk", "notification-url", "clock"], "\(names)")
        for check in run.checks {
            #expect(check["status"] as? String == "ok", "\(check)")
        }
        #expect(run.detail("roots").contains("SHA-256 ") && run.detail("roots").contains("not one of Apple's roots"), "\(run.detail("roots"))")
        #expect(run.detail("notification-url").contains("400 INVALID_JWT_FORMAT"), "\(run.detail("notification-url"))")
        #expect(run.detail("store").contains("layout 3"), "\(run.detail("store"))")
        Self.expectNoSecret(run, try Self.secrets(environment))

        // The same through the command line, as `make doctor` runs it: lines for people.
        let text = try Self.doctor(environment, arguments: ["--text", "--notification-url", gateway.baseURL + "/appstore/notifications"])
        #expect(text.exit == 0, "\(text)")
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.count == names.count + 1 && lines.dropLast().allSatisfy { $0.hasPrefix("OK ") }, "\(text.stdout)")
        #expect(lines.last == "doctor: no problem found", "\(text.stdout)")
        #expect(Self.storeBytes(path) == before, "doctor --text changed the store")
        Self.expectNoSecret(text, try Self.secrets(environment))
    }

    @Test("Apple Root CA - G3 beside the test root (a folder of roots): named, with its pinned fingerprint")
    func appleRootIsNamed() throws {
        let apple = try FakeAppStore.start()
        defer { apple.stop() }
        var environment = Self.goodEnvironment(storeURL: "sqlite:/nonexistent/doctor.db", apple: apple)
        let folder = FunctionBinary.repositoryRoot.appendingPathComponent("Tests/Fixtures/apple-roots").path
        environment["APPSTORE_ROOT_CERTS"] = Self.pki.appendingPathComponent("root.pem").path + "," + folder
        let run = try Self.doctor(environment)
        #expect(run.status("roots") == "ok", "\(run)")
        let detail = run.detail("roots")
        #expect(detail.contains("\(folder): C=US,O=Apple Inc.,OU=Apple Certification Authority,CN=Apple Root CA - G3, valid 2014-04-30 to 2039-04-30, "
                                + "SHA-256 63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79, "
                                + "Apple Root CA - G3 (App Store signed data)"), "\(detail)")
        #expect(detail.contains("Storekeeper Test Root CA - G3") && detail.contains("not one of Apple's roots"), "\(detail)")
    }

    @Test("An expired root, a root that is no CA, a key whose file names another id, an id without its key: named problems, exit 78")
    func configurationFaults() throws {
        let folder = try E2E.scratchFolder("doctor-keys")
        defer { try? FileManager.default.removeItem(at: folder) }
        let apple = try FakeAppStore.start()
        defer { apple.stop() }
        let path = try Self.usedStore(in: folder) { Self.goodEnvironment(storeURL: $0, apple: apple) }
        var environment = Self.goodEnvironment(storeURL: "sqlite:" + path, apple: apple)
        // The test root ends on 2049-01-01: at a pinned 2050 it has expired.
        environment["STOREKEEPER_NOW"] = "2050-01-01T00:00:00Z"
        let renamed = folder.appendingPathComponent("AuthKey_OTHERKEY99.p8").path
        try FileManager.default.copyItem(atPath: FakeAppStore.apiKeyPath, toPath: renamed)
        environment["APPSTORE_PRIVATE_KEY"] = renamed
        environment["SIWA_PRIVATE_KEY"] = nil
        let before = Self.storeBytes(path)

        let run = try Self.doctor(environment)
        #expect(run.exit == 78 && run.answer["ok"] as? Bool == false, "\(run)")
        #expect(run.problems == ["roots", "app-store-api-key", "sign-in-with-apple-key"], "\(run)")
        #expect(run.detail("roots").contains("expired on 2049-01-01"), "\(run.detail("roots"))")
        #expect(run.detail("app-store-api-key").contains("named for key OTHERKEY99 but APPSTORE_KEY_ID is \(FakeAppStore.keyId)"),
                "\(run.detail("app-store-api-key"))")
        #expect(run.detail("sign-in-with-apple-key").contains("SIWA_KEY_ID is set without SIWA_PRIVATE_KEY"))
        #expect(run.status("offer-key") == "ok" && run.status("store") == "ok", "\(run)")
        Self.expectNoSecret(run, try Self.secrets(environment))

        // A leaf named as a root is no CA; an admin token too short is guessable.
        environment["STOREKEEPER_NOW"] = nil
        environment["APPSTORE_ROOT_CERTS"] = Self.pki.appendingPathComponent("leaf.pem").path
        environment["STOREKEEPER_ADMIN_TOKEN"] = "Zq9x!"
        environment["APPSTORE_PRIVATE_KEY"] = FakeAppStore.apiKeyPath
        environment["APPSTORE_ISSUER_ID"] = nil
        let second = try Self.doctor(environment)
        #expect(second.exit == 78 && second.problems.contains("roots") && second.problems.contains("tokens"), "\(second)")
        #expect(second.detail("roots").contains("not a CA certificate"), "\(second.detail("roots"))")
        #expect(second.detail("tokens").contains("5 characters"), "\(second.detail("tokens"))")
        #expect(second.detail("app-store-api-key").contains("APPSTORE_ISSUER_ID is not set"), "\(second.detail("app-store-api-key"))")
        Self.expectNoSecret(second, try Self.secrets(environment) + ["Zq9x!"])
        #expect(Self.storeBytes(path) == before, "doctor changed the store")
    }

    @Test("A notification URL that 404s and Apple's Date 10 minutes off: notification-url and clock problems, exit 78")
    func notificationURLAndClock() throws {
        let folder = try E2E.scratchFolder("doctor-net")
        defer { try? FileManager.default.removeItem(at: folder) }
        let apple = try FakeAppStore.start()
        defer { apple.stop() }
        let path = try Self.usedStore(in: folder) { Self.goodEnvironment(storeURL: $0, apple: apple) }
        let environment = Self.goodEnvironment(storeURL: "sqlite:" + path, apple: apple)
        let gateway = try Gateway.start(environment: environment)
        defer { gateway.stop() }
        try apple.setClockOffset(seconds: 600)

        let run = try Self.doctor(environment, request: ["notificationURL": gateway.baseURL + "/no/such/route"])
        #expect(run.exit == 78 && run.problems == ["notification-url", "clock"], "\(run)")
        #expect(run.detail("notification-url").contains("answered 404"), "\(run.detail("notification-url"))")
        #expect(run.detail("clock").contains("behind"), "\(run.detail("clock"))")

        // The same fake with its clock right again: the clock is ok; one unreachable is skipped.
        try apple.setClockOffset(seconds: 0)
        #expect(try Self.doctor(environment).status("clock") == "ok")
        var unreachable = environment
        unreachable["APPSTORE_API_BASE_URL"] = "http://127.0.0.1:\(try RedisTestServer.freePort())"
        let skipped = try Self.doctor(unreachable)
        #expect(skipped.status("clock") == "skipped" && skipped.exit == 0, "\(skipped)")
    }

    @Test("An unreachable store is a problem named store, and its password never shows")
    func unreachableStore() throws {
        let apple = try FakeAppStore.start()
        defer { apple.stop() }
        let password = "doctor-redis-password-" + UUID().uuidString
        let environment = Self.goodEnvironment(storeURL: "redis://:\(password)@127.0.0.1:\(try RedisTestServer.freePort())/0", apple: apple)
        let run = try Self.doctor(environment)
        #expect(run.exit == 78 && run.problems == ["store"], "\(run)")
        #expect(run.detail("store").contains("does not answer"), "\(run.detail("store"))")
        Self.expectNoSecret(run, try Self.secrets(environment) + [password])
    }

    @Test("An SQLite store that does not exist is a problem, and doctor creates neither the file nor its folder")
    func missingSQLiteStoreIsNotCreated() throws {
        let apple = try FakeAppStore.start()
        defer { apple.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-absent-\(UUID().uuidString)")
        let path = folder.appendingPathComponent("storekeeper.db").path
        let run = try Self.doctor(Self.goodEnvironment(storeURL: "sqlite:" + path, apple: apple))
        #expect(run.exit == 78 && run.problems == ["store"], "\(run)")
        #expect(run.detail("store").contains("there is no file \(path)"), "\(run.detail("store"))")
        #expect(!FileManager.default.fileExists(atPath: folder.path), "doctor created the store's folder")
    }

    /// redis-cli against the test server: one command's reply.
    static func redisCLI(_ server: RedisTestServer, _ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("redis-cli-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        process.arguments = ["-p", String(server.port)] + arguments
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        try? handle.close()
        process.waitUntilExit()
        return String(decoding: try Data(contentsOf: output), as: UTF8.self)
    }

    @Test("An evicting Redis (allkeys-lru) is a store-eviction problem; doctor sent it read commands only and changed no key")
    func evictingRedis() throws {
        try #require(RedisTestServer.shouldRun, "\(RedisTestServer.unavailableReason ?? "redis-server")")
        let server = try RedisTestServer.start(arguments: ["--maxmemory-policy", "allkeys-lru", "--enable-debug-command", "yes"])
        defer { server.stop() }
        let apple = try FakeAppStore.start()
        defer { apple.stop() }
        let environment = Self.goodEnvironment(storeURL: server.url(database: 1), apple: apple)
        let payload = try #require(try Binaries.sign(Scene.story(group: 0xD0C8).notifications).first)
        #expect(try Binaries.receive([payload], environment: environment).answers == ["accepted"])
        let digest = try Self.redisCLI(server, ["DEBUG", "DIGEST"])
        #expect(digest.count > 40 && !digest.hasPrefix("0000000000"), "no digest of a store with data: \(digest)")
        _ = try Self.redisCLI(server, ["CONFIG", "RESETSTAT"])

        let run = try Self.doctor(environment)
        #expect(run.exit == 78 && run.problems == ["store-eviction"], "\(run)")
        #expect(run.detail("store-eviction").contains("allkeys-lru (CONFIG GET)"), "\(run.detail("store-eviction"))")
        // RedisTestServer runs without an append-only file: a warning, not a problem.
        #expect(run.status("store-persistence") == "warning", "\(run)")
        let used = Set(try Self.redisCLI(server, ["INFO", "commandstats"]).split(whereSeparator: \.isNewline).compactMap { line -> String? in
            guard line.hasPrefix("cmdstat_") else { return nil }
            return String(line.dropFirst("cmdstat_".count).prefix { $0 != ":" })
        })
        // What the adapter sends to connect, doctor's reads, and this test's own RESETSTAT and INFO.
        let reads: Set<String> = ["hmget", "config|get", "info", "ping", "select", "auth", "hello", "client|setname", "config|resetstat"]
        #expect(used.isSubset(of: reads) && used.contains("hmget"), "commands doctor sent: \(used.sorted())")
        #expect(try Self.redisCLI(server, ["DEBUG", "DIGEST"]) == digest, "doctor changed the data")
    }

    @Test("rediss:// with mutual TLS (STORE_TLS_*): the store answers; without the client certificate it is a store problem")
    func redisOverTLS() throws {
        try #require(RedisTestServer.shouldRun, "\(RedisTestServer.unavailableReason ?? "redis-server")")
        let server = try RedisTestServer.start(arguments: ["--appendonly", "yes"], tls: .init(authenticatesClients: true))
        defer { server.stop() }
        let apple = try FakeAppStore.start()
        defer { apple.stop() }
        var environment = Self.goodEnvironment(storeURL: try #require(server.tlsURL(database: 3)), apple: apple)
        environment["STORE_TLS_CA_FILE"] = RedisTestServer.TLS.fixture("ca.pem")
        environment["STORE_TLS_CERT_FILE"] = RedisTestServer.TLS.fixture("client.pem")
        environment["STORE_TLS_KEY_FILE"] = RedisTestServer.TLS.fixture("client.key")
        let run = try Self.doctor(environment)
        #expect(run.exit == 0 && run.status("store") == "ok" && run.status("store-eviction") == "ok", "\(run)")
        #expect(run.detail("store").hasPrefix("redis store rediss://localhost:"), "\(run.detail("store"))")

        environment["STORE_TLS_CERT_FILE"] = nil
        let refused = try Self.doctor(environment)
        #expect(refused.exit == 78 && refused.problems == ["store"], "\(refused)")
    }

    @Test("A managed Redis with CONFIG disabled: the policy read from INFO memory; noeviction and appendonly are ok")
    func redisWithoutConfig() throws {
        try #require(RedisTestServer.shouldRun, "\(RedisTestServer.unavailableReason ?? "redis-server")")
        let server = try RedisTestServer.start(arguments: ["--rename-command", "CONFIG", "", "--appendonly", "yes"])
        defer { server.stop() }
        let apple = try FakeAppStore.start()
        defer { apple.stop() }
        let environment = Self.goodEnvironment(storeURL: server.url(database: 2), apple: apple)
        let run = try Self.doctor(environment)
        #expect(run.exit == 0 && run.status("store-eviction") == "ok" && run.status("store-persistence") == "ok", "\(run)")
        #expect(run.detail("store-eviction").contains("noeviction (INFO memory)"), "\(run.detail("store-eviction"))")
        #expect(run.detail("store").contains("no function has opened it yet"), "\(run.detail("store"))")
        // Not even the layout mark every function writes on its first open.
        #expect(try Self.redisCLI(server, ["-n", "2", "DBSIZE"]).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }
}
