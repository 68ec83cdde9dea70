import Foundation
import Testing
import TestSupport

/// systemd's offline tools, when installed: `systemd-analyze verify` and `systemd-socket-activate`.
enum SystemdTools {
    static let analyze = Gateway.installed("systemd-analyze", override: "SYSTEMD_ANALYZE")
    static let socketActivate = Gateway.installed("systemd-socket-activate", override: "SYSTEMD_SOCKET_ACTIVATE")

    /// `systemd-analyze verify` of `paths`, without the man page check (Documentation=): exit 0
    /// with nothing on stderr is a pass. It warns about an unknown key with exit 0, so a test
    /// must read stderr; a missing binary is exit 1.
    static func verify(_ paths: [String], in folder: URL) throws -> (termination: SpawnedProcess.Termination, stdout: String, stderr: String) {
        guard let analyze else { throw SpawnedProcess.Failure("systemd-analyze is not installed") }
        return try RenderedUnits.run(analyze, ["verify", "--man=no"] + paths, in: folder)
    }
}

extension SystemdUnitsTests {
    @Test("Started as systemd starts it (the listening socket as stdin, stdout and stderr elsewhere), a function answers FastCGI, and SIGTERM ends it with exit 0")
    func socketActivated() throws {
        guard let activate = SystemdTools.socketActivate else {
            print("SystemdUnitsTests: systemd-socket-activate is not installed: no function started under socket activation")
            return
        }
        let rendered = try render()
        defer { rendered.remove() }
        let socket = try #require(try rendered.unit("storekeeper-get-entitlements.socket").value("Socket", "ListenStream"))
        let service = try rendered.unit("storekeeper-get-entitlements.service")
        let executable = try #require(service.value("Service", "ExecStart"))
        try #require(service.value("Service", "StandardInput") == "socket")
        // The service's environment as systemd builds it: Environment=, then the file over it.
        var environment: [String: String] = [:]
        for assignment in service.values("Service", "Environment") { environment.merge(Self.pair(assignment)) { $1 } }
        let file = try String(contentsOfFile: try #require(service.value("Service", "EnvironmentFile")), encoding: .utf8)
        for line in file.split(separator: "\n") { environment.merge(Self.pair(String(line))) { $1 } }
        let log = rendered.folder.appendingPathComponent("journal.log").path
        // --inetd: the listening socket becomes fd 0 (and 1), as StandardInput=socket makes it
        // fd 0; the shell then points stdout and stderr at the log, as StandardOutput=journal does.
        let arguments = ["--inetd", "-l", socket] + environment.sorted { $0.key < $1.key }.flatMap { ["-E", "\($0.key)=\($0.value)"] }
            + ["/bin/sh", "-c", "exec \"$0\" >>\"$1\" 2>&1", executable, log]
        let child = try SpawnedProcess.spawn(activate, arguments, environment: ["PATH": "/usr/bin:/bin"],
                                             directory: try #require(service.value("Service", "WorkingDirectory")),
                                             stdout: log, stderr: log)
        defer { _ = child.killAndWait() }
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: socket) && Date() < deadline && child.poll() == nil { usleep(20_000) }
        let answer = try FastCGIClient.request(socket: socket, method: "GET", query: "userId=nobody",
                                               headers: ["HTTP_AUTHORIZATION": "Bearer \(adminToken)"])
        #expect(answer.status == 200 && answer.json["entitlements"] is [Any], "\(answer)")
        let refused = try FastCGIClient.request(socket: socket, method: "GET", query: "userId=nobody")
        #expect(refused.status == 401, "\(refused)")
        child.send(SIGTERM)
        #expect(child.wait(seconds: 30) == .exited(0))
        let lines = FastCGIClient.logLines(log)
        #expect(lines.contains { $0["event"] as? String == "fastcgi_stopped" && $0["served"] as? Int == 2 }, "\(lines)")
        #expect(FileManager.default.fileExists(atPath: rendered.store.appendingPathComponent("storekeeper.db").path),
                "the store is the unit's default, in its WorkingDirectory")
    }

    static func pair(_ assignment: String) -> [String: String] {
        guard let equals = assignment.firstIndex(of: "=") else { return [:] }
        return [String(assignment[..<equals]): String(assignment[assignment.index(after: equals)...])]
    }
}
