import Foundation

/// Apple's Python library (`app-store-server-library` from PyPI, which `make deps` installs
/// into var/python) signing offers through Tests/Support/peers/apple_offer_signatures.py:
/// the implementation sign-offer's signatures are compared with.
public enum AppleOfferLibrary {
    static let script = PythonPeers.script("peers/apple_offer_signatures.py")
    static var environment: [String: String] { PythonPeers.environment }

    /// A python3 that imports the library from var/python, or nil.
    public static let python: String? = PythonPeers.python(importing: "appstoreserverlibrary.jws_signature_creator")

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
