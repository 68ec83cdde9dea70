import Foundation

/// Apple's Python library (`app-store-server-library` from PyPI, which `make deps` installs
/// into var/python) signing offers through Tests/Support/peers/apple_offer_signatures.py:
/// the implementation sign-offer's signatures are compared with.
public enum AppleOfferLibrary {
    static let support = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    static let script = support.appendingPathComponent("peers/apple_offer_signatures.py").path
    /// Where `make deps` installs the library.
    static let packages = support.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("var/python").path

    static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = ([packages] + (environment["PYTHONPATH"].map { [$0] } ?? [])).joined(separator: ":")
        return environment
    }

    /// A python3 that imports the library from var/python, or nil.
    public static let python: String? = {
        for candidate in ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            let probe = try? SpawnedProcess.spawn(candidate, ["-c", "import appstoreserverlibrary.jws_signature_creator"],
                                                  environment: environment)
            if probe?.waitOrKill(limit: 60).termination == .exited(0) { return candidate }
        }
        return nil
    }()

    /// The library's signature for `spec` (see the script for its fields): base64 DER for
    /// the original promotional offer, a compact JWS for the other kinds.
    public static func sign(_ spec: [String: Any]) throws -> String {
        guard let python else {
            throw SpawnedProcess.Failure("Apple's app-store-server-library is not installed in var/python (make deps)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apple-offer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("spec.json")
        let output = folder.appendingPathComponent("out.json")
        try JSONSerialization.data(withJSONObject: spec).write(to: input)
        let process = try SpawnedProcess.spawn(python, [script], environment: environment, stdin: input.path,
                                               stdout: output.path, stderr: output.path)
        let ended = process.waitOrKill(limit: 60)
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard ended.termination == .exited(0),
              let answer = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let signature = answer["signature"] as? String else {
            throw SpawnedProcess.Failure("apple_offer_signatures.py failed (\(ended.termination)): \(text)")
        }
        return signature
    }
}
