import Foundation
import Testing
import TestSupport

/// `infra/systemd/render-units.sh` against the built binaries: every unit it writes passes
/// `systemd-analyze verify` (which needs no running systemd: it loads the units offline, checks
/// every directive and that each ExecStart is executable, and says so on stderr), and the units
/// say what the renderer promises. One function is then started the way systemd starts it.
@Suite("infra/systemd: units verified by systemd-analyze, a socket and a service per routed function, the timers",
       .serialized, .enabled(if: SystemdTools.analyze != nil, "systemd-analyze is not installed (apt-get install systemd)"))
struct SystemdUnitsTests {
    static let jobs = ["process-notifications", "reconcile", "deliver-events", "backup-store"]
    let adminToken = "systemd-admin-" + UUID().uuidString

    func render(_ settings: [String: String] = [:]) throws -> RenderedUnits {
        var environment = E2E.environment(storeURL: "", adminToken: adminToken)
        environment["PATH"] = nil
        environment["STORE_URL"] = nil
        return try RenderedUnits(environment: environment, settings: settings)
    }

    @Test("Every rendered unit passes systemd-analyze verify without a word on stderr")
    func unitsVerify() throws {
        let rendered = try render()
        defer { rendered.remove() }
        var units = try rendered.fileNames().filter { !$0.hasSuffix(".conf") }
        // A job whose function is not in this repository yet is rendered all the same (its
        // timer waits for the binary); only its ExecStart cannot be checked.
        let absent = Self.jobs.filter { !FunctionBinary.functionNames.contains($0) }
        if !absent.isEmpty { print("SystemdUnitsTests: not verified (no such function here yet): \(absent)") }
        units.removeAll { name in absent.contains { name.hasPrefix("storekeeper-\($0).") } }
        let verdict = try SystemdTools.verify(units.map { rendered.units.appendingPathComponent($0).path }, in: rendered.folder)
        #expect(verdict.termination == .exited(0) && verdict.stderr.isEmpty, "systemd-analyze verify: \(verdict)")
        // FASTCGI_CHILDREN 2 by default: a socket and two services per routed function.
        #expect(units.count == 3 * RenderedUnits.routed.count + 1 + 2 * (Self.jobs.count - absent.count) + 1)
    }

    @Test("systemd-analyze's complaints reach the test: an unknown directive, a missing binary")
    func verifyCanFail() throws {
        let rendered = try render()
        defer { rendered.remove() }
        let service = rendered.units.appendingPathComponent("storekeeper-get-entitlements.service")
        let text = try String(contentsOf: service, encoding: .utf8)
        try (text + "StandardInputt=socket\n").write(to: service, atomically: true, encoding: .utf8)
        let unknown = try SystemdTools.verify([service.path, rendered.units.appendingPathComponent("storekeeper-get-entitlements.socket").path],
                                              in: rendered.folder)
        #expect(unknown.stderr.contains("StandardInputt"), "\(unknown)")
        try text.replacingOccurrences(of: "ExecStart=\(rendered.binaries.path)/get-entitlements", with: "ExecStart=/nonexistent/get-entitlements")
            .write(to: service, atomically: true, encoding: .utf8)
        let missing = try SystemdTools.verify([service.path], in: rendered.folder)
        #expect(missing.termination != .exited(0) && missing.stderr.contains("/nonexistent/get-entitlements"), "\(missing)")
    }

    @Test("The renderer refuses a path systemd would misread, a bad FASTCGI_CHILDREN and a folder without the binaries, writing nothing")
    func refusals() throws {
        let folder = try E2E.scratchFolder("render-refusals")
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("units").path
        let bin = FunctionBinary.binDirectory.path, store = folder.path, sockets = folder.path
        let cases: [([String], [String: String], SpawnedProcess.Termination, String)] = [
            ([bin, "/etc/storekeeper/my env", store, sockets, out], [:], .exited(64), "has a character"),
            ([bin, "/etc/storekeeper/env%i", store, sockets, out], [:], .exited(64), "has a character"),
            ([bin, "relative/env", store, sockets, out], [:], .exited(64), "not an absolute path"),
            ([bin, "/etc/storekeeper/env", store, sockets, out], ["FASTCGI_CHILDREN": "0"], .exited(64), "FASTCGI_CHILDREN"),
            ([folder.path, "/etc/storekeeper/env", store, sockets, out], [:], .exited(66), "build the binaries first"),
        ]
        for (arguments, settings, termination, message) in cases {
            let run = try RenderedUnits.script("infra/systemd/render-units.sh", arguments, environment: settings, in: folder)
            #expect(run.termination == termination && run.stderr.contains(message), "\(arguments) \(settings): \(run)")
            let written = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
            #expect(written.allSatisfy { !$0.hasSuffix(".service") }, "\(written)")
        }
    }

    @Test("A socket and FASTCGI_CHILDREN socket-activated services per routed function: StandardInput=socket, the journal, hardened, SIGTERM")
    func functionUnits() throws {
        let rendered = try render(["FASTCGI_CHILDREN": "3"])
        defer { rendered.remove() }
        let routed = RenderedUnits.routed
        try #require(!routed.isEmpty)
        let files = try rendered.fileNames()
        for (name, _) in routed {
            let socket = try rendered.unit("storekeeper-\(name).socket")
            #expect(socket.value("Socket", "ListenStream") == rendered.sockets.appendingPathComponent("\(name).sock").path)
            #expect(socket.value("Socket", "SocketGroup") == "www-data" && socket.value("Socket", "SocketMode") == "0660")
            #expect(socket.value("Socket", "Accept") == "no")
            let service = try rendered.unit("storekeeper-\(name).service")
            #expect(service.value("Service", "ExecStart") == rendered.binaries.appendingPathComponent(name).path)
            #expect(service.value("Service", "StandardInput") == "socket", "\(name)")
            #expect(service.value("Service", "StandardOutput") == "journal" && service.value("Service", "StandardError") == "journal")
            #expect(service.value("Service", "User") == "storekeeper")
            #expect(service.value("Service", "EnvironmentFile") == rendered.environmentFile.path)
            #expect(service.value("Service", "WorkingDirectory") == rendered.store.path)
            #expect(service.values("Service", "ReadWritePaths") == [rendered.store.path])
            for (key, value) in [("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"), ("PrivateTmp", "yes"),
                                 ("ProtectHome", "yes"), ("KillSignal", "SIGTERM"), ("CapabilityBoundingSet", "")] {
                #expect(service.value("Service", key) == value, "\(name): \(key)")
            }
            #expect(service.value("Service", "TimeoutStopSec").flatMap { Int($0.dropLast()) }.map { $0 >= 45 } == true)
            // FASTCGI_CHILDREN 3: two more processes on the same socket, started and stopped with the first.
            let wanted = (service.value("Unit", "Wants") ?? "").split(separator: " ").map(String.init)
            for child in 2...3 {
                let sibling = try rendered.unit("storekeeper-\(name)-\(child).service")
                #expect(wanted.contains("storekeeper-\(name)-\(child).service"), "\(name): \(wanted)")
                #expect(sibling.value("Service", "Sockets") == "storekeeper-\(name).socket")
                #expect(sibling.value("Service", "StandardInput") == "socket" && sibling.value("Service", "StandardOutput") == "journal")
                #expect(sibling.value("Unit", "PartOf") == "storekeeper-\(name).service")
                #expect(sibling.value("Service", "ExecStart") == service.value("Service", "ExecStart"))
            }
            #expect(!files.contains("storekeeper-\(name)-4.service"))
        }
        let unrouted = FunctionBinary.functionNames.filter { name in !routed.contains { $0.0 == name } }
        for name in unrouted { #expect(!files.contains("storekeeper-\(name).socket"), "\(name) has no route") }
        // Nothing but the environment file holds a setting's value.
        for file in files { #expect(!(try String(contentsOf: rendered.units.appendingPathComponent(file), encoding: .utf8)).contains(adminToken)) }
    }

    @Test("The gateway: nginx as its own user, after every socket, its configuration passing to those sockets (nginx -t)")
    func gatewayUnit() throws {
        let port = try RedisTestServer.freePort()
        let rendered = try render(["GATEWAY_LISTEN": "127.0.0.1:\(port)", "GATEWAY_STATE_DIR": FileManager.default.temporaryDirectory
            .appendingPathComponent("storekeeper-gw-\(UUID().uuidString.prefix(8))").path])
        defer { rendered.remove() }
        let gateway = try rendered.unit("storekeeper-gateway.service")
        let conf = rendered.units.appendingPathComponent("storekeeper-gateway.nginx.conf")
        #expect(gateway.value("Service", "ExecStart")?.hasSuffix("nginx -e stderr -c \(conf.path)") == true)
        #expect(gateway.value("Service", "User") == "www-data" && gateway.value("Service", "KillSignal") == "SIGQUIT")
        #expect(gateway.value("Service", "EnvironmentFile") == nil, "the gateway reads no secret")
        let after = Set((gateway.value("Unit", "After") ?? "").split(separator: " ").map(String.init))
        let configuration = try String(contentsOf: conf, encoding: .utf8)
        for (name, route) in RenderedUnits.routed {
            #expect(after.contains("storekeeper-\(name).socket"), "\(name)")
            #expect(configuration.contains("location = \(route) {\n            fastcgi_pass unix:\(rendered.sockets.path)/\(name).sock;"))
        }
        #expect(configuration.contains("listen 127.0.0.1:\(port);") && !configuration.contains("\nuser "))
        let nginx = try #require(Gateway.nginx, "nginx is not installed")
        let state = try #require(configuration.split(separator: "\n").first { $0.hasPrefix("pid ") }).dropFirst(4).dropLast("/nginx.pid;".count)
        try FileManager.default.createDirectory(atPath: "\(state)/tmp", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: String(state)) }
        let check = try RenderedUnits.run(nginx, ["-t", "-q", "-e", "stderr", "-c", conf.path], in: rendered.folder)
        #expect(check.termination == .exited(0), "nginx -t: \(check)")
    }

    @Test("Timers for process-notifications, reconcile, deliver-events and backup-store, each a oneshot reading '{}'")
    func timers() throws {
        let rendered = try render()
        defer { rendered.remove() }
        let target = try rendered.unit("storekeeper.target")
        for job in Self.jobs {
            let timer = try rendered.unit("storekeeper-\(job).timer")
            let schedule = timer.values("Timer", "OnCalendar") + timer.values("Timer", "OnUnitInactiveSec")
            #expect(!schedule.isEmpty, "\(job) has no schedule")
            #expect(timer.value("Install", "WantedBy") == "timers.target")
            let service = try rendered.unit("storekeeper-\(job).service")
            #expect(service.value("Service", "Type") == "oneshot")
            #expect(service.value("Service", "ExecStart") == rendered.binaries.appendingPathComponent(job).path)
            #expect(service.value("Service", "StandardInput") == "data" && service.value("Service", "StandardInputText") == "{}")
            #expect(service.value("Service", "EnvironmentFile") == rendered.environmentFile.path)
            #expect(target.values("Unit", "Wants").contains("storekeeper-\(job).timer"))
        }
        #expect(try rendered.unit("storekeeper-process-notifications.timer").value("Timer", "OnUnitInactiveSec") == "1min")
        let backup = try rendered.unit("storekeeper-backup-store.service")
        #expect(backup.values("Service", "Environment").contains("STORE_BACKUP_DIR=\(rendered.store.path)/backups"))
        #expect(backup.values("Service", "ReadWritePaths") == [rendered.store.path, "\(rendered.store.path)/backups"])
        #expect(target.values("Unit", "Wants").contains("storekeeper-gateway.service"))
    }
}
