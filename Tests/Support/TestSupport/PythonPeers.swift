import Foundation

/// The PyPI packages the tests check Storekeeper against (Apple's app-store-server-library,
/// standardwebhooks, prometheus-client), which `make deps` installs into var/python, and the
/// scripts under Tests/Support that drive them.
enum PythonPeers {
    static let support = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    static let packages = support.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("var/python").path

    /// A script under Tests/Support (`peers/…`, `fakes/…`).
    static func script(_ path: String) -> String {
        support.appendingPathComponent(path).path
    }

    /// This process's environment with var/python first on PYTHONPATH.
    static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = ([packages] + (environment["PYTHONPATH"].map { [$0] } ?? [])).joined(separator: ":")
        return environment
    }

    /// A python3 that imports `module` with var/python on its path, or nil.
    static func python(importing module: String) -> String? {
        for candidate in ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            let probe = try? SpawnedProcess.spawn(candidate, ["-c", "import " + module], environment: environment)
            if probe?.waitOrKill(limit: 60).termination == .exited(0) { return candidate }
        }
        return nil
    }
}
