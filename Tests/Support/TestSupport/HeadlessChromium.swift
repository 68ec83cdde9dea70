import Foundation

/// Debian's headless Chromium and chromium-driver, driven by Selenium (PyPI, which `make deps`
/// installs into var/python) through a script under Tests/Support/peers. The driver's path is
/// given explicitly and Selenium Manager is off (SE_OFFLINE): nothing downloads a browser.
public enum HeadlessChromium {
    public static let chromium = "/usr/bin/chromium"
    public static let chromedriver = "/usr/bin/chromedriver"

    /// Why a browser test cannot run: Chromium or its driver is not installed. Selenium missing
    /// is no reason to skip (make deps installs it): `run` throws then.
    public static let unavailableReason: String? = {
        let missing = [chromium, chromedriver].filter { !FileManager.default.isExecutableFile(atPath: $0) }
        guard !missing.isEmpty else { return nil }
        return "\(missing.joined(separator: " and ")) not installed (apt-get install chromium chromium-driver, or make deps)"
    }()

    /// Runs `peers/<script>` with `arguments`; its stdout, a JSON object, is the answer.
    /// `secret` must not appear in what the script writes to stderr.
    public static func run(script: String, arguments: [String], secret: String, limit: Double = 180) throws -> [String: Any] {
        guard let python = PythonPeers.python(importing: "selenium.webdriver") else {
            throw SpawnedProcess.Failure("selenium is not installed in var/python (make deps)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("report.json"), errors = folder.appendingPathComponent("stderr.txt")
        var environment = PythonPeers.environment
        environment["SE_OFFLINE"] = "true"
        let process = try SpawnedProcess.spawn(python, [PythonPeers.script("peers/" + script)] + arguments,
                                               environment: environment, stdout: output.path, stderr: errors.path)
        let ended = process.waitOrKill(limit: limit)
        let text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        guard ended.termination == .exited(0), let data = try? Data(contentsOf: output),
              let report = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw SpawnedProcess.Failure("\(script) ended with \(ended.termination)\(ended.timedOut ? " (timed out)" : ""): \(text.suffix(3000))")
        }
        guard !text.contains(secret) else { throw SpawnedProcess.Failure("\(script) wrote the secret to its stderr") }
        return report
    }
}
