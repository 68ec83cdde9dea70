import Foundation
import HTTPTransport
import StorekeeperCore
import Testing
import TestSupport

extension ContainerImageTests {
    @Test("The entry point, run outside an image: nginx serves the functions from the environment, SIGTERM stops everything with exit 0",
          .enabled(if: Gateway.nginx != nil && Gateway.spawnFCGI != nil, "nginx or spawn-fcgi is not installed"))
    func entryPointServes() throws {
        let entry = FunctionBinary.repositoryRoot.appendingPathComponent("infra/container/entrypoint.sh").path
        let state = try E2E.scratchFolder("container")
        defer { try? FileManager.default.removeItem(at: state) }
        let store = try TestStore(.sqlite)
        let token = "container-admin-" + UUID().uuidString
        let port = try RedisTestServer.freePort()
        var environment = E2E.environment(storeURL: store.url, adminToken: token)
        environment["STOREKEEPER_BIN_DIR"] = FunctionBinary.binDirectory.path
        environment["GATEWAY_STATE_DIR"] = state.appendingPathComponent("gateway").path
        environment["GATEWAY_LISTEN"] = "127.0.0.1:\(port)"
        environment["FASTCGI_CHILDREN"] = "1"
        let output = state.appendingPathComponent("container.log").path
        let container = try SpawnedProcess.spawn("/bin/bash", [entry], environment: environment, stdout: output, stderr: output)
        defer { _ = container.killAndWait() }
        // Every routed function starts before nginx does: slow on a busy machine.
        let deadline = Date().addingTimeInterval(240)
        while !Gateway.accepts(port: port) && container.poll() == nil && Date() < deadline { usleep(100_000) }
        let log = { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        try #require(Gateway.accepts(port: port), "the entry point never listened: \(log())")
        let answer = try CurlHTTPClient().send(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/entitlements?userId=nobody",
                                                           headers: [("Authorization", "Bearer \(token)")], timeout: .seconds(60)))
        #expect(answer.status == 200, "\(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        let unknown = try CurlHTTPClient().send(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/entitlements/x", timeout: .seconds(60)))
        #expect(unknown.status == 404)
        let pids = try String(contentsOf: state.appendingPathComponent("gateway/functions.pid"), encoding: .utf8)
            .split(separator: "\n").compactMap { pid_t($0) }
        #expect(pids.count == RenderedUnits.routed.count)
        container.send(SIGTERM)
        #expect(container.wait(seconds: 60) == .exited(0), "\(log())")
        #expect(!pids.contains { kill($0, 0) == 0 && !Self.isZombie($0) }, "a function outlived the container's stop")
        #expect(log().contains("\"event\":\"fastcgi_serving\""), "the functions' log lines reach the container's output")
    }

    static func isZombie(_ pid: pid_t) -> Bool {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return status.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? true
    }
}
