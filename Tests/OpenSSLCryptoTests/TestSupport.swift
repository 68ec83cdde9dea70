import Foundation

/// Files next to this test target (located through #filePath; no resource bundles).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    /// A JWS example from a vector file under Vectors/.
    static func jwsVector(_ name: String) throws -> JWSVector {
        let data = try Data(contentsOf: directory.appendingPathComponent("Vectors/\(name)"))
        return try JSONDecoder().decode(JWSVector.self, from: data)
    }
}

/// A published JWS example: the public JWK and the compact serialization.
struct JWSVector: Decodable {
    struct JWK: Decodable {
        let kty: String
        let n: String?
        let e: String?
        let crv: String?
        let x: String?
        let y: String?
    }

    let jwk: JWK
    let jws: String

    /// The JWS signing input: "header.payload" as ASCII bytes.
    var signingInput: [UInt8] {
        Array(jws.split(separator: ".").prefix(2).joined(separator: ".").utf8)
    }

    var signature: [UInt8] {
        base64URLDecode(String(jws.split(separator: ".")[2]))
    }
}

/// Test-only base64url decoder (the product one lives in StorekeeperCore, above this module).
func base64URLDecode(_ text: String) -> [UInt8] {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64).map { [UInt8]($0) } ?? []
}

func hexBytes(_ hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
        index = next
    }
    return bytes
}

func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// Runs the `openssl` command-line tool, for generating test material and cross-checking.
enum OpenSSLCLI {
    static let path: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    static var isAvailable: Bool { path != nil }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `openssl arguments...` in `directory`; throws with stderr when it fails.
    @discardableResult
    static func run(_ arguments: [String], in directory: URL) throws -> Data {
        guard let path else { throw Failure(description: "openssl CLI not found") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Drain stderr on another thread while this one drains stdout, so neither pipe can
        // fill up and stall the child.
        let errorBox = DataBox()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            errorBox.data = errors.fileHandleForReading.readDataToEndOfFile()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        let errorData = errorBox.data
        guard process.terminationStatus == 0 else {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")) failed: "
                + String(decoding: errorData, as: UTF8.self))
        }
        return outputData
    }
}

/// Written by one thread, read by another only after DispatchGroup.wait().
private final class DataBox: @unchecked Sendable {
    var data = Data()
}

/// A throwaway temporary directory.
func makeTemporaryDirectory(_ label: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("openssl-crypto-tests-\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func removeTemporaryDirectory(_ url: URL) {
    try? FileManager.default.removeItem(at: url)
}
