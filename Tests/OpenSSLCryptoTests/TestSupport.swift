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
