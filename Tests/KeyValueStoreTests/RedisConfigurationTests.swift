import Foundation
import Testing

/// infra/redis/redis.conf as production runs it: a real redis-server must accept the file and
/// report the settings that keep acknowledged data (persistence on, no eviction, loopback).
@Suite struct RedisConfigurationTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let configuration = repositoryRoot.appendingPathComponent("infra/redis/redis.conf").path
    static let server = "/usr/bin/redis-server"
    static let client = "/usr/bin/redis-cli"
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: server) && FileManager.default.isExecutableFile(atPath: client)
    }

    static func cli(_ socket: String, _ arguments: [String]) async throws -> String {
        try await ChildProcess.run(client, ["-s", socket] + arguments).stdout
    }

    @Test(.enabled(if: available, "redis-server and redis-cli (Debian package redis-server) are not installed"))
    func productionSettingsAreInForce() async throws {
        let folder = try TestDirectory.newFolder()
        let socket = folder + "/redis.sock"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.server)
        // Only where it listens and writes is overridden: no TCP port, files in a scratch folder.
        process.arguments = [Self.configuration, "--port", "0", "--unixsocket", socket, "--dir", folder]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // SIGKILL: a child of a test thread may have SIGTERM blocked (see ChildProcess).
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        var ready = false
        for _ in 0..<100 where !ready {
            ready = FileManager.default.fileExists(atPath: socket)
            if !ready { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(ready, "redis-server did not start with \(Self.configuration)")

        func setting(_ name: String) async throws -> String {
            let lines = try await Self.cli(socket, ["CONFIG", "GET", name]).split(separator: "\n")
            return lines.count == 2 ? String(lines[1]) : ""
        }
        #expect(try await setting("appendonly") == "yes")
        #expect(try await setting("appendfsync") == "everysec")
        #expect(try await setting("maxmemory-policy") == "noeviction")
        #expect(try await setting("protected-mode") == "yes")
        let bind = try await setting("bind").split(separator: " ")
        #expect(!bind.isEmpty && bind.allSatisfy { $0.hasPrefix("127.") || $0.hasSuffix("::1") }, "bind \(bind)")
        #expect(try await setting("stop-writes-on-bgsave-error") == "yes")
        _ = try await Self.cli(socket, ["SHUTDOWN", "NOSAVE"])
    }
}
