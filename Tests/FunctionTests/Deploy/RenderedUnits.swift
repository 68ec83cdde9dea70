import Foundation
import TestSupport

/// The units `infra/systemd/render-units.sh` writes for the built binaries, rendered into a
/// scratch folder (units, sockets, store, environment file), and read back as systemd reads
/// them: sections of `Key=value` lines.
struct RenderedUnits {
    let folder: URL
    let units: URL
    let sockets: URL
    let store: URL
    let environmentFile: URL
    let binaries: URL

    /// A unit file: its sections, each a list of (key, value) in order (a key may repeat).
    struct Unit {
        var sections: [String: [(key: String, value: String)]] = [:]

        func values(_ section: String, _ key: String) -> [String] {
            (sections[section] ?? []).filter { $0.key == key }.map(\.value)
        }

        func value(_ section: String, _ key: String) -> String? { values(section, key).last }
    }

    /// Renders into a fresh scratch folder; `environment` is the environment file's content
    /// (NAME=value lines) and `settings` the renderer's own variables (GATEWAY_LISTEN, ...).
    init(binaries: URL = FunctionBinary.binDirectory, environment: [String: String], settings: [String: String] = [:]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-systemd-\(UUID().uuidString.prefix(8))")
        units = folder.appendingPathComponent("units")
        sockets = folder.appendingPathComponent("run")
        store = folder.appendingPathComponent("store")
        environmentFile = folder.appendingPathComponent("storekeeper.env")
        self.binaries = binaries
        for made in [folder, sockets, store] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        let lines = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)\n" }.joined()
        try Data(lines.utf8).write(to: environmentFile)
        let run = try Self.script("infra/systemd/render-units.sh",
                                  [binaries.path, environmentFile.path, store.path, sockets.path, units.path],
                                  environment: settings, in: folder)
        guard run.termination == .exited(0) else {
            throw SpawnedProcess.Failure("render-units.sh ended with \(run.termination): \(run.stderr)")
        }
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    /// The names of the files written, sorted.
    func fileNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: units.path).sorted()
    }

    func unit(_ name: String) throws -> Unit {
        try Self.parse(String(contentsOf: units.appendingPathComponent(name), encoding: .utf8))
    }

    static func parse(_ text: String) -> Unit {
        var unit = Unit()
        var section = ""
        for raw in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals]), value = String(line[line.index(after: equals)...])
            unit.sections[section, default: []].append((key, value))
        }
        return unit
    }

    /// (name, route) of each routed function, as the renderer reads function.json.
    static var routed: [(String, String)] { (try? Gateway.routedFunctions()) ?? [] }

    /// A script of the repository run with bash and `environment` (plus PATH): its exit, stdout, stderr.
    static func script(_ path: String, _ arguments: [String], environment: [String: String] = [:],
                       in folder: URL) throws -> (termination: SpawnedProcess.Termination, stdout: String, stderr: String) {
        try run("/bin/bash", [FunctionBinary.repositoryRoot.appendingPathComponent(path).path] + arguments,
                environment: environment, in: folder)
    }

    /// Any program, its output in files of `folder` (never pipes: see FunctionBinary.run).
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                    in folder: URL, limit: Double = 120) throws -> (termination: SpawnedProcess.Termination, stdout: String, stderr: String) {
        let label = UUID().uuidString.prefix(8)
        let output = folder.appendingPathComponent("out-\(label)"), errors = folder.appendingPathComponent("err-\(label)")
        var env = environment
        env["PATH"] = env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
        let process = try SpawnedProcess.spawn(executable, arguments, environment: env, directory: FunctionBinary.repositoryRoot.path,
                                               stdout: output.path, stderr: errors.path)
        let (termination, timedOut) = process.waitOrKill(limit: limit)
        defer { try? FileManager.default.removeItem(at: output); try? FileManager.default.removeItem(at: errors) }
        let stdout = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        return (timedOut ? .signaled(SIGKILL) : termination, stdout, stderr + (timedOut ? " (timed out after \(limit) s)" : ""))
    }
}
