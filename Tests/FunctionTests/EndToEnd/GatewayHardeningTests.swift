import Foundation
import HTTPTransport
import StorekeeperCore
import Testing
import TestSupport

extension EndToEnd {
    /// The shipped gateway configurations (lighttpd with CGI, nginx with FastCGI) against what a
    /// determined client does: paths beside the routes, connections held open by trickling a
    /// body, and reading the rendered file.
    @Suite("Through lighttpd and nginx: exact routes, slow clients, no secret on disk")
    struct GatewayHardeningTests {
        @Test("Only the exact routes reach a binary: prefixes, sub-paths and the build folder are 404; query strings still route",
              arguments: Gateway.Kind.allCases)
        func exactRoutes(_ kind: Gateway.Kind) throws {
            let deployment = try Deployment(.sqlite, gateway: kind)
            let gateway = deployment.gateway
            let bearer = [("Authorization", "Bearer \(deployment.adminToken)")]
            // SwiftPM leaves <product>.product/Objects.LinkFileList beside the binaries; a
            // prefix route (/entitlements) used to serve it.
            let buildFile = FunctionBinary.binDirectory.appendingPathComponent("get-entitlements.product/Objects.LinkFileList")
            if !FileManager.default.fileExists(atPath: buildFile.path) {
                print("GatewayHardeningTests: \(buildFile.path) is absent; /entitlements.product/... is checked all the same")
            }
            for path in ["/entitlements.product/Objects.LinkFileList", "/entitlements/x", "/entitlements/", "/entitlementsX",
                         "/appstore/verifyX", "/appstore/verify/", "/appstore", "/", "/get-entitlements", "/receive-notification"] {
                let answer = try gateway.send(HTTPRequest(method: "GET", url: gateway.baseURL + path, headers: bearer))
                #expect(answer.status == 404, "GET \(path): \(answer)")
                #expect(!answer.text.contains("Objects"), "GET \(path): \(answer)")
            }
            // What must still route: the query string is not part of the path matched.
            let entitlements = try gateway.send(HTTPRequest(
                method: "GET", url: gateway.baseURL + "/entitlements?userId=nobody", headers: bearer))
            #expect(entitlements.status == 200 && entitlements.json["entitlements"] is [Any], "\(entitlements)")
            let notification = try gateway.send(HTTPRequest(
                method: "POST", url: gateway.baseURL + "/appstore/notifications",
                headers: [("Content-Type", "application/json")], body: Array(#"{"signedPayload": "x.y.z"}"#.utf8)))
            #expect(notification.status == 400 && notification.errorCode == "INVALID_JWT_FORMAT", "\(notification)")
            // Every route and method of function.json answers from its function (a JSON object, or
            // the dashboard's page), not the gateway.
            for (route, method) in try Self.routes() {
                let answer = try gateway.send(HTTPRequest(
                    method: method, url: gateway.baseURL + route, headers: [("Content-Type", "application/json")],
                    body: method == "GET" ? [] : Array("{}".utf8)))
                #expect(answer.status != 404 && (!answer.json.isEmpty || answer.text.hasPrefix("<!DOCTYPE html>")),
                        "\(method) \(route): \(answer)")
            }
            // Through the door the gateway speaks, not a fallback.
            let doors = Set(gateway.logLines().filter { $0["event"] as? String == "request" }.compactMap { $0["door"] as? String })
            #expect(doors == [kind == .nginxFastCGI ? "fastcgi" : "cgi"], "\(doors)")
        }

        @Test("300 connections trickling a body: a webhook still answers, and the server closes them once they go quiet",
              arguments: Gateway.Kind.allCases)
        func slowClients(_ kind: Gateway.Kind) throws {
            let deployment = try Deployment(.sqlite, gateway: kind)
            var story = LifecycleSimulator(originalTransactionId: "3000000040", group: 40, start: E2E.nowMilliseconds - 60_000)
            story.subscribe()
            let signed = try #require(try Binaries.sign(story.notifications).first)

            let clients = try SlowClients.start(port: deployment.gateway.port, count: 300)
            defer { clients.stop() }
            let opened = try clients.waitFor("open", seconds: 60)
            #expect(opened["opened"] as? Int == 300 && opened["failed"] as? Int == 0, "\(opened)")

            // Bounded generously: this is whether Apple gets an answer at all, not how fast.
            var request = HTTPRequest(method: "POST", url: deployment.gateway.baseURL + "/appstore/notifications",
                                      headers: [("Content-Type", "application/json")],
                                      body: Array(try JSONSerialization.data(withJSONObject: ["signedPayload": signed])))
            request.timeout = .seconds(15)
            do {
                let response = try CurlHTTPClient().send(request)
                let answer = Gateway.Answer(status: response.status, body: response.body)
                #expect(answer.status == 200 && answer.receipt == "accepted", "webhook under 300 slow connections: \(answer)")
            } catch {
                Issue.record("webhook under 300 slow connections: \(error)")
            }

            // Quiet from now on: lighttpd's read idle timeout (5 s) closes every one of them.
            clients.stopTrickling()
            let done = try clients.waitFor("done", seconds: 60)
            #expect(done["closedWhileTrickling"] as? Int == 0, "the connections were to be held while trickling: \(done)")
            #expect(done["closedAfterSilence"] as? Int == 300 && done["stillOpen"] as? Int == 0,
                    "the server is to close quiet connections after its idle timeout: \(done)")
        }

        @Test("gateway.sh: the rendered configuration holds no secret, is 0600 in a 0700 folder, and is gone after stop")
        func noSecretOnDisk() throws {
            try E2E.requireTools()
            let redisPassword = "redis-pw-" + UUID().uuidString
            let redis = try RedisTestServer.start(password: redisPassword)
            defer { redis.stop() }
            let adminToken = "e2e-admin-" + UUID().uuidString
            let dataKey = (0..<4).map { _ in String(format: "%016llx", UInt64.random(in: 0...UInt64.max)) }.joined()
            var environment = E2E.environment(storeURL: redis.url(), adminToken: adminToken)
            environment["STOREKEEPER_DATA_KEY"] = dataKey
            let secrets = ["admin token": adminToken, "data key": dataKey, "Redis password": redisPassword]

            let state = try E2E.scratchFolder("gateway-sh").appendingPathComponent("state")
            defer { try? FileManager.default.removeItem(at: state.deletingLastPathComponent()) }
            let port = try RedisTestServer.freePort()
            defer { _ = try? Self.gatewayScript(["stop", state.path], environment: environment) }
            let started = try Self.gatewayScript(["start", FunctionBinary.binDirectory.path, String(port), state.path],
                                                 environment: environment)
            try #require(started == .exited(0), "gateway.sh start: \(started)")

            let config = state.appendingPathComponent("lighttpd.conf")
            let text = try String(contentsOf: config, encoding: .utf8)
            for (what, value) in secrets {
                #expect(!text.contains(value), "the \(what) is written in \(config.path)")
            }
            let configMode = try Self.permissions(config), stateMode = try Self.permissions(state)
            #expect(configMode & 0o077 == 0, "lighttpd.conf is \(String(configMode, radix: 8))")
            #expect(stateMode & 0o077 == 0, "the state folder is \(String(stateMode, radix: 8))")

            // The functions still get every secret: the bearer check passes and Redis (password) answers.
            let url = "http://127.0.0.1:\(port)/entitlements?userId=nobody"
            let right = try CurlHTTPClient().send(HTTPRequest(method: "GET", url: url, headers: [("Authorization", "Bearer \(adminToken)")]))
            #expect(right.status == 200, "\(right.status) \(String(decoding: right.body, as: UTF8.self))")
            let wrong = try CurlHTTPClient().send(HTTPRequest(method: "GET", url: url, headers: [("Authorization", "Bearer not-\(adminToken)")]))
            #expect(wrong.status == 401, "\(wrong.status)")

            let stopped = try Self.gatewayScript(["stop", state.path], environment: environment)
            #expect(stopped == .exited(0), "gateway.sh stop: \(stopped)")
            #expect(!FileManager.default.fileExists(atPath: config.path), "lighttpd.conf stays after stop")
            let deadline = Date().addingTimeInterval(20)
            while Gateway.accepts(port: port) && Date() < deadline { usleep(50_000) }
            #expect(!Gateway.accepts(port: port), "lighttpd still listens after stop")
        }

        @Test("nginx.sh: stop ends every FastCGI process it started, two a routed function",
              .enabled(if: Gateway.nginx != nil && Gateway.spawnFCGI != nil, "nginx or spawn-fcgi is not installed"))
        func nginxScriptStopsItsFunctions() throws {
            try E2E.requireTools()
            let folder = try E2E.scratchFolder("nginx-sh")
            defer { try? FileManager.default.removeItem(at: folder) }
            var environment = E2E.environment(storeURL: "sqlite:" + folder.appendingPathComponent("store.db").path,
                                              adminToken: "e2e-admin-" + UUID().uuidString)
            environment["PATH"] = environment["PATH"] ?? ProcessInfo.processInfo.environment["PATH"]
            let state = folder.appendingPathComponent("state"), script = "infra/nginx/nginx.sh"
            let port = try RedisTestServer.freePort()
            defer { _ = try? Self.gatewayScript(["stop", state.path], environment: environment, script: script) }
            let started = try Self.gatewayScript(["start", FunctionBinary.binDirectory.path, String(port), state.path],
                                                 environment: environment, script: script)
            try #require(started == .exited(0), "nginx.sh start: \(started)")
            let listed = try String(contentsOf: state.appendingPathComponent("functions.pid"), encoding: .utf8)
            let pids = listed.split(whereSeparator: \.isNewline).compactMap { Int32($0) }
            #expect(pids.count == 2 * Set(try Self.routes().map(\.0)).count, "functions.pid: \(listed)")
            for pid in pids { #expect(Self.running(pid), "\(pid) of functions.pid is not a running function") }

            let stopped = try Self.gatewayScript(["stop", state.path], environment: environment, script: script)
            #expect(stopped == .exited(0), "nginx.sh stop: \(stopped)")
            for pid in pids { #expect(!Self.running(pid), "function process \(pid) still runs after stop") }
        }

        // MARK: helpers

        /// Running: neither gone nor a zombie (exited, not reaped: spawn-fcgi leaves its children
        /// to PID 1, which in a container may never reap them).
        static func running(_ pid: Int32) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let end = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(after: end)...].dropFirst().first != "Z"
        }

        /// (route, method) of every function.json with a route.
        static func routes() throws -> [(String, String)] {
            let folder = FunctionBinary.repositoryRoot.appendingPathComponent("functions")
            // "method" is one method or, for a function that takes several (dashboard), a list.
            return try FunctionBinary.functionNames.flatMap { name -> [(String, String)] in
                let data = try Data(contentsOf: folder.appendingPathComponent(name).appendingPathComponent("function.json"))
                guard let manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                      let route = manifest["route"] as? String else { return [] }
                let methods = manifest["method"] as? [String] ?? [manifest["method"] as? String ?? "POST"]
                return methods.map { (route, $0) }
            }
        }

        static func gatewayScript(_ arguments: [String], environment: [String: String],
                                  script: String = "infra/gateway/gateway.sh") throws -> SpawnedProcess.Termination {
            let path = FunctionBinary.repositoryRoot.appendingPathComponent(script).path
            let process = try SpawnedProcess.spawn("/bin/bash", [path] + arguments, environment: environment,
                                                   directory: FunctionBinary.repositoryRoot.path)
            let (termination, timedOut) = process.waitOrKill(limit: 60)
            if timedOut { throw SpawnedProcess.Failure("\(script) \(arguments.first ?? "") did not end within 60 s") }
            return termination
        }

        static func permissions(_ url: URL) throws -> Int {
            try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? 0o777
        }
    }
}

/// Tests/Support/http/slow_clients.py in a child process: `count` connections to the gateway
/// that each trickle a request body a byte a second until `stopTrickling()`, then fall quiet
/// and report when the server closed them. Its report lines (JSON) are read from a file.
final class SlowClients: @unchecked Sendable {
    static let script = FunctionBinary.repositoryRoot.appendingPathComponent("Tests/Support/http/slow_clients.py").path
    let folder: URL
    private let process: SpawnedProcess
    private var output: URL { folder.appendingPathComponent("report.ndjson") }
    private var stopFile: URL { folder.appendingPathComponent("stop") }

    private init(folder: URL, process: SpawnedProcess) {
        self.folder = folder
        self.process = process
    }

    static func start(port: Int, count: Int) throws -> SlowClients {
        guard let python = FakeVerifyReceiptServer.python else { throw SpawnedProcess.Failure("python3 is not on PATH") }
        let folder = try E2E.scratchFolder("slow-clients")
        let process = try SpawnedProcess.spawn(python, [
            script, "--port", String(port), "--count", String(count), "--interval", "1",
            "--stop-file", folder.appendingPathComponent("stop").path, "--hold-at-most", "90", "--wait-closed", "30",
        ], stdout: folder.appendingPathComponent("report.ndjson").path, stderr: folder.appendingPathComponent("stderr.log").path)
        return SlowClients(folder: folder, process: process)
    }

    func stopTrickling() {
        _ = FileManager.default.createFile(atPath: stopFile.path, contents: Data())
    }

    /// The report line whose "event" is `event`, polled for up to `seconds`.
    func waitFor(_ event: String, seconds: Double) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") {
                if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                   object["event"] as? String == event {
                    return object
                }
            }
            if process.poll() != nil && !text.contains("\"\(event)\"") {
                let errors = (try? String(contentsOf: folder.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
                throw SpawnedProcess.Failure("slow_clients.py ended without \(event): \(text) \(errors)")
            }
            usleep(100_000)
        }
        throw SpawnedProcess.Failure("slow_clients.py reported no \(event) within \(Int(seconds)) s")
    }

    func stop() {
        process.killAndWait()
        try? FileManager.default.removeItem(at: folder)
    }
}
