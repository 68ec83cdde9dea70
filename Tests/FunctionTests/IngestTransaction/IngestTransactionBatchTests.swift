import Foundation
import Testing
import TestSupport

/// `ingest-transaction` answering a batch of one user's transactions (NDJSON, one process):
/// the work and the answer grow with the batch, not with its square. Measured without a
/// clock: the bytes answered and the store commands sent (counted by a real Redis) for n and
/// 2n lines, each batch on a fresh store; a ratio near 2 is linear, near 4 quadratic.
@Suite("ingest-transaction: a one-user batch is linear")
struct IngestTransactionBatchTests {
    static let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    static let now: Int64 = 1_780_272_000_000

    static let environment = [
        "APPSTORE_ROOT_CERTS": "Tests/Fixtures/pki/root.pem",
        "APPSTORE_BUNDLE_ID": "com.example.storekeeper",
        "APPSTORE_APP_APPLE_ID": "1234567890",
        "APPSTORE_ONLINE_CHECKS": "off",
        "STOREKEEPER_NOW": "1780272000",
    ]

    /// `count` purchases of one user, each its own subscription, all with the user's token.
    static func batch(_ count: Int) throws -> Data {
        var requests = ""
        for index in 0..<count {
            let id = String(3_000_000_000 + index)
            let payload: [String: Any] = [
                "transactionId": id, "originalTransactionId": id, "bundleId": "com.example.storekeeper",
                "productId": "com.example.pro.monthly", "type": "Auto-Renewable Subscription",
                "purchaseDate": now, "expiresDate": now + 2_592_000_000, "signedDate": now,
                "environment": "Sandbox", "inAppOwnershipType": "PURCHASED", "appAccountToken": token,
            ]
            requests += String(decoding: try JSONSerialization.data(withJSONObject: ["sign": "transaction", "payload": payload]), as: UTF8.self) + "\n"
        }
        let signed = try FunctionBinary(name: "simulate-store").run(stdin: Data(requests.utf8), environment: ["SIMULATE_PKI_DIR": "Tests/Fixtures/pki"])
        #expect(signed.exitCode == 0, "\(signed.stderrText)")
        var lines = ""
        for line in signed.stdoutText.split(separator: "\n") {
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let jws = try #require(answer["signedData"] as? String, "\(answer)")
            lines += String(decoding: try JSONSerialization.data(withJSONObject: ["jwsRepresentation": jws, "userId": "u-batch"]), as: UTF8.self) + "\n"
        }
        return Data(lines.utf8)
    }

    /// The answer's bytes, after checking every line was applied and answers its own subscription.
    static func ingest(_ batch: Data, count: Int, store: String) throws -> Int {
        var environment = Self.environment
        environment["STORE_URL"] = store
        let result = try FunctionBinary(name: "ingest-transaction").run(stdin: batch, environment: environment)
        #expect(result.exitCode == 0, "\(result.stderrText)")
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == count)
        for (index, line) in lines.enumerated() {
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(answer["outcome"] as? String == "applied")
            #expect(answer["userId"] as? String == "u-batch")
            #expect(answer["active"] as? Bool == true)
            let entitlements = try #require(answer["entitlements"] as? [[String: Any]])
            #expect(entitlements.map { $0["originalTransactionId"] as? String } == [String(3_000_000_000 + index)])
        }
        return result.stdout.count
    }

    /// `active` stays the user's: a line about an expired subscription of a user who holds an
    /// active one (in the store before the batch, and from an earlier line) answers true.
    @Test func activeIsTheUsersNotOnlyThisLines() throws {
        var environment = Self.environment
        environment["STORE_URL"] = "sqlite:" + Self.scratchStore()
        let first = try FunctionBinary(name: "ingest-transaction").run(stdin: try Self.batch(1), environment: environment)
        #expect(first.exitCode == 0, "\(first.stderrText)")
        let expiredPayload: [String: Any] = [
            "transactionId": "3100000000", "originalTransactionId": "3100000000", "bundleId": "com.example.storekeeper",
            "productId": "com.example.pro.yearly", "type": "Auto-Renewable Subscription",
            "purchaseDate": Self.now - 40 * 86_400_000, "expiresDate": Self.now - 86_400_000, "signedDate": Self.now - 40 * 86_400_000,
            "environment": "Sandbox", "inAppOwnershipType": "PURCHASED",
        ]
        let signed = try FunctionBinary(name: "simulate-store").run(
            stdin: try JSONSerialization.data(withJSONObject: ["sign": "transaction", "payload": expiredPayload]),
            environment: ["SIMULATE_PKI_DIR": "Tests/Fixtures/pki"])
        let jws = try #require((try JSONSerialization.jsonObject(with: signed.stdout) as? [String: Any])?["signedData"] as? String)
        let line = try JSONSerialization.data(withJSONObject: ["jwsRepresentation": jws, "userId": "u-batch"])
        let result = try FunctionBinary(name: "ingest-transaction").run(stdin: line, environment: environment)
        let answer = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stderrText)")
        let entitlements = try #require(answer["entitlements"] as? [[String: Any]])
        #expect(entitlements.first?["active"] as? Bool == false)
        #expect(answer["active"] as? Bool == true, "\(answer)")
    }

    @Test func theAnswerGrowsWithTheBatchNotItsSquare() throws {
        let n = 25
        let small = try Self.ingest(try Self.batch(n), count: n, store: "sqlite:" + Self.scratchStore())
        let large = try Self.ingest(try Self.batch(2 * n), count: 2 * n, store: "sqlite:" + Self.scratchStore())
        let ratio = Double(large) / Double(small)
        #expect(ratio > 1.8 && ratio < 2.2, "bytes answered for \(n) and \(2 * n) lines: \(small), \(large)")
    }

    @Test(.enabled(if: RedisTestServer.shouldRun, "redis-server is not installed"))
    func theStoreWorkGrowsWithTheBatchNotItsSquare() throws {
        let n = 25
        var commands: [Int] = []
        for count in [n, 2 * n] {
            let batch = try Self.batch(count)
            // A server of its own per batch: its command counter is this batch's alone.
            let server = try RedisTestServer.start()
            defer { server.stop() }
            let before = try Self.commandsProcessed(server)
            _ = try Self.ingest(batch, count: count, store: server.url())
            commands.append(try Self.commandsProcessed(server) - before - 1)
        }
        let ratio = Double(commands[1]) / Double(commands[0])
        #expect(ratio > 1.7 && ratio < 2.2, "store commands for \(n) and \(2 * n) lines: \(commands)")
    }

    static func scratchStore() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ingest-batch-\(UUID().uuidString).db").path
    }

    /// Redis's own count of the commands it has served (INFO counts itself too).
    static func commandsProcessed(_ server: RedisTestServer) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        process.arguments = ["-p", String(server.port), "INFO", "stats"]
        // A file, not a pipe: a redis-server another test starts meanwhile could inherit a
        // pipe's write end (see FunctionBinary).
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("redis-info-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try FileHandle(forWritingTo: file)
        process.standardOutput = output
        try process.run()
        try? output.close()
        process.waitUntilExit()
        let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline).first { $0.hasPrefix("total_commands_processed:") }
        return try #require(line.flatMap { Int($0.dropFirst("total_commands_processed:".count)) }, "\(text)")
    }
}
