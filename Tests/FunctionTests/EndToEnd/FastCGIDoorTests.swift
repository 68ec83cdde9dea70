import Foundation
import StorekeeperCore
import Testing
import TestSupport

extension EndToEnd {
    /// The FastCGI door of the built binaries, spoken to by libfcgi's own client (`cgi-fcgi`,
    /// which sends its whole environment as the request's parameters) and started the ways a
    /// deployment starts them: spawn-fcgi with several children on one socket, or a socket
    /// handed over as stdin.
    @Suite("FastCGI: children on one socket, SIGTERM mid-request, failures forgotten, parameters never configuration")
    struct FastCGIDoorTests {
        @Test("spawn-fcgi -F 2 on a Unix socket: both children answer, and SIGTERM stops each with exit 0")
        func spawnFCGIChildren() throws {
            try E2E.requireTools()
            let spawnFCGI = try #require(Gateway.spawnFCGI, "spawn-fcgi is not installed")
            let store = try TestStore(.sqlite)
            let state = try E2E.scratchFolder("spawn-fcgi")
            defer { try? FileManager.default.removeItem(at: state) }
            let socket = state.appendingPathComponent("get-entitlements.sock").path
            let pidFile = state.appendingPathComponent("children.pid").path
            let log = state.appendingPathComponent("functions.log").path
            let token = "fcgi-admin-" + UUID().uuidString
            let spawner = try SpawnedProcess.spawn(
                spawnFCGI, ["-s", socket, "-F", "2", "-P", pidFile, "-d", FunctionBinary.repositoryRoot.path, "--",
                            "/bin/sh", "-c", "exec \"$0\" 2>>\"$1\"",
                            FunctionBinary.binDirectory.appendingPathComponent("get-entitlements").path, log],
                environment: E2E.environment(storeURL: store.url, adminToken: token))
            #expect(spawner.waitOrKill(limit: 30).termination == .exited(0))
            let pids = try String(contentsOfFile: pidFile, encoding: .utf8).split(separator: "\n").compactMap { pid_t($0) }
            try #require(pids.count == 2, "spawn-fcgi wrote \(pids)")
            defer { for pid in pids { kill(pid, SIGKILL) } }

            let answers = concurrently(24) { index in
                try FastCGIClient.request(socket: socket, method: "GET", query: "userId=user-\(index)",
                                          headers: ["HTTP_AUTHORIZATION": "Bearer \(token)"])
            }
            for result in answers {
                let answer = try result.get()
                #expect(answer.status == 200 && answer.json["entitlements"] is [Any], "\(answer)")
            }
            for pid in pids { kill(pid, SIGTERM) }
            let deadline = Date().addingTimeInterval(20)
            while pids.contains(where: { kill($0, 0) == 0 }) && Date() < deadline { usleep(20_000) }
            #expect(!pids.contains { kill($0, 0) == 0 }, "a child outlived SIGTERM")
            let stopped = FastCGIClient.logLines(log).filter { $0["event"] as? String == "fastcgi_stopped" }
            let served = stopped.compactMap { $0["served"] as? Int }
            #expect(stopped.count == 2 && served.reduce(0, +) == 24, "\(stopped)")
            // Which child takes a connection is the kernel's choice: both served is likely, not owed.
            print("FastCGIDoorTests: requests served per child: \(served)")
        }

        @Test("SIGTERM while the body is still arriving: the request is answered in full, then the process exits 0")
        func sigtermMidRequest() throws {
            let setup = try OneChild("receive-notification")
            var story = LifecycleSimulator(originalTransactionId: "3000000050", group: 50, start: E2E.nowMilliseconds - 60_000)
            story.subscribe()
            let signed = try #require(try Binaries.sign(story.notifications).first)
            let body = Array(try JSONSerialization.data(withJSONObject: ["signedPayload": signed]))

            let fifo = setup.state.appendingPathComponent("body.fifo").path
            #expect(mkfifo(fifo, 0o600) == 0)
            // Opened read-write first, so that neither end waits for the other to open (the
            // client opens it while posix_spawn still holds this thread); closing it is the EOF.
            let writer = open(fifo, O_RDWR)
            try #require(writer >= 0)
            let output = setup.state.appendingPathComponent("answer.out").path
            let client = try FastCGIClient.start(socket: setup.socket, method: "POST", contentLength: body.count,
                                                 stdin: fifo, stdout: output)
            let half = body.count / 2
            #expect(body[..<half].withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } == half)
            usleep(300_000)
            setup.child.send(SIGTERM)
            usleep(300_000)
            #expect(setup.child.poll() == nil, "the child stopped with a request in flight")
            #expect(body[half...].withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } == body.count - half)
            close(writer)
            #expect(client.waitOrKill(limit: 30).termination == .exited(0))
            let answer = try FastCGIClient.Answer(cgiOutput: Array(try Data(contentsOf: URL(fileURLWithPath: output))))
            #expect(answer.status == 200 && answer.json["status"] as? String == "accepted", "\(answer)")
            #expect(setup.child.wait(seconds: 20) == .exited(0), "after the answer, SIGTERM ends the process")
            #expect(try setup.store.pendingJobs() == 1)
        }

        @Test("A bad, an oversized and a wrong-method request, then good ones, to one process: each answered on its own")
        func failuresAreForgotten() throws {
            let setup = try OneChild("receive-notification")
            var story = LifecycleSimulator(originalTransactionId: "3000000051", group: 51, start: E2E.nowMilliseconds - 60_000)
            story.subscribe()
            let signed = try #require(try Binaries.sign(story.notifications).first)
            let good = Array(try JSONSerialization.data(withJSONObject: ["signedPayload": signed]))

            let invalid = try FastCGIClient.request(socket: setup.socket, method: "POST", body: Array("{not json".utf8))
            #expect(invalid.status == 400 && invalid.errorCode == "invalid_json", "\(invalid)")
            let tooLarge = try FastCGIClient.request(socket: setup.socket, method: "POST", body: [],
                                                     headers: ["CONTENT_LENGTH": "99999999"])
            #expect(tooLarge.status == 413 && tooLarge.errorCode == "payload_too_large", "\(tooLarge)")
            let wrongMethod = try FastCGIClient.request(socket: setup.socket, method: "GET")
            #expect(wrongMethod.status == 405, "\(wrongMethod)")
            let accepted = try FastCGIClient.request(socket: setup.socket, method: "POST", body: good)
            #expect(accepted.status == 200 && accepted.json["status"] as? String == "accepted", "\(accepted)")
            let duplicate = try FastCGIClient.request(socket: setup.socket, method: "POST", body: good)
            #expect(duplicate.status == 200 && duplicate.json["status"] as? String == "duplicate", "\(duplicate)")
            #expect(setup.child.poll() == nil, "the process ended")
            #expect(try setup.store.pendingJobs() == 1)
        }

        @Test("Parameters named like settings (APPSTORE_BUNDLE_ID, STOREKEEPER_ADMIN_TOKEN, STORE_URL) change nothing")
        func parametersAreNotConfiguration() throws {
            let setup = try OneChild("receive-notification")
            var story = LifecycleSimulator(originalTransactionId: "3000000052", group: 52, start: E2E.nowMilliseconds - 60_000)
            story.subscribe()
            var otherApp = story.notifications[0]
            otherApp.uuid = NotificationSpec.uuid(52, 101)
            otherApp.bundleId = "com.example.someone-else"
            otherApp.transaction.bundleId = "com.example.someone-else"
            let signed = try Binaries.sign([story.notifications[0], otherApp])
            let hostile = ["APPSTORE_BUNDLE_ID": "com.example.someone-else", "STORE_URL": "sqlite:/nonexistent/x.db",
                           "APPSTORE_ENVIRONMENT": "Production", "APPSTORE_ONLINE_CHECKS": "hard"]
            let foreign = try FastCGIClient.request(
                socket: setup.socket, method: "POST",
                body: Array(try JSONSerialization.data(withJSONObject: ["signedPayload": signed[1]])), headers: hostile)
            #expect(foreign.status == 400 && foreign.errorCode == "INVALID_APP_IDENTIFIER", "\(foreign)")
            let ours = try FastCGIClient.request(
                socket: setup.socket, method: "POST",
                body: Array(try JSONSerialization.data(withJSONObject: ["signedPayload": signed[0]])), headers: hostile)
            #expect(ours.status == 200 && ours.json["status"] as? String == "accepted", "\(ours)")
            #expect(try setup.store.hasNotification(story.notifications[0].uuid), "stored elsewhere than STORE_URL says")

            // An internal function: the token is the process's, not one a request names.
            let entitlements = try OneChild("get-entitlements")
            let forged = try FastCGIClient.request(
                socket: entitlements.socket, method: "GET", query: "userId=nobody",
                headers: ["STOREKEEPER_ADMIN_TOKEN": "forged", "HTTP_AUTHORIZATION": "Bearer forged"])
            #expect(forged.status == 401 && forged.errorCode == "unauthorized", "\(forged)")
            let right = try FastCGIClient.request(
                socket: entitlements.socket, method: "GET", query: "userId=nobody",
                headers: ["HTTP_AUTHORIZATION": "Bearer \(entitlements.adminToken)"])
            #expect(right.status == 200, "\(right)")
        }
    }
}

/// One FastCGI function process on its own store and socket (the socket handed over as stdin).
final class OneChild {
    let store: TestStore
    let state: URL
    let socket: String
    let child: SpawnedProcess
    let adminToken = "fcgi-admin-" + UUID().uuidString

    init(_ function: String) throws {
        try E2E.requireTools()
        store = try TestStore(.sqlite)
        state = try E2E.scratchFolder("fcgi")
        socket = state.appendingPathComponent("\(function).sock").path
        child = try #require(try Gateway.startFunction(function, children: 1, state: state,
                                                       environment: E2E.environment(storeURL: store.url, adminToken: adminToken)).first)
    }

    deinit {
        child.killAndWait()
        try? FileManager.default.removeItem(at: state)
    }
}

/// libfcgi's `cgi-fcgi` as the web server: it sends its own environment as the request's
/// parameters and its stdin as the body, and writes the CGI response it gets to stdout.
enum FastCGIClient {
    static let executable = Gateway.installed("cgi-fcgi", override: "CGI_FCGI")

    struct Answer: CustomStringConvertible {
        var status: Int
        var body: [UInt8]
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
        var description: String { "\(status) \(String(decoding: body, as: UTF8.self))" }

        /// "Status: 200 OK\r\n...\r\n\r\nbody".
        init(cgiOutput: [UInt8]) throws {
            let text = String(decoding: cgiOutput, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { throw SpawnedProcess.Failure("no CGI head in \(text)") }
            let head = text[..<end.lowerBound]
            let statusLine = head.split(separator: "\r\n").first { $0.hasPrefix("Status: ") }
            status = statusLine.flatMap { Int($0.dropFirst("Status: ".count).prefix(3)) } ?? 200
            body = Array(text[end.upperBound...].utf8)
        }
    }

    static func parameters(method: String, query: String, contentLength: Int?, headers: [String: String]) -> [String: String] {
        var parameters = ["REQUEST_METHOD": method, "QUERY_STRING": query, "SERVER_PROTOCOL": "HTTP/1.1",
                          "CONTENT_TYPE": "application/json", "PATH": "/usr/bin:/bin",
                          // Never used for routing: the function serves its own route.
                          "SCRIPT_FILENAME": "/nonexistent/other-function", "PATH_INFO": "/elsewhere"]
        if let contentLength { parameters["CONTENT_LENGTH"] = String(contentLength) }
        return parameters.merging(headers) { $1 }
    }

    static func start(socket: String, method: String, query: String = "", contentLength: Int?, headers: [String: String] = [:],
                      stdin: String, stdout: String) throws -> SpawnedProcess {
        guard let executable else { throw SpawnedProcess.Failure("cgi-fcgi is not installed (apt-get install libfcgi-bin)") }
        return try SpawnedProcess.spawn(executable, ["-bind", "-connect", socket],
                                        environment: parameters(method: method, query: query, contentLength: contentLength, headers: headers),
                                        stdin: stdin, stdout: stdout)
    }

    static func request(socket: String, method: String, query: String = "", body: [UInt8] = [],
                        headers: [String: String] = [:]) throws -> Answer {
        let folder = try E2E.scratchFolder("cgi-fcgi")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("body"), output = folder.appendingPathComponent("out")
        try Data(body).write(to: input)
        let client = try start(socket: socket, method: method, query: query, contentLength: body.isEmpty ? nil : body.count,
                               headers: headers, stdin: input.path, stdout: output.path)
        let (termination, timedOut) = client.waitOrKill(limit: 30)
        guard !timedOut, termination == .exited(0) else { throw SpawnedProcess.Failure("cgi-fcgi ended with \(termination)") }
        return try Answer(cgiOutput: Array(try Data(contentsOf: output)))
    }

    static func logLines(_ path: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
