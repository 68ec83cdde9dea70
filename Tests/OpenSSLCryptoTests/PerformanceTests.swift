import Foundation
import Testing
import OpenSSLCrypto

/// Prints what the request path costs; asserts only correctness (timings vary by host).
@Suite(.serialized) struct PerformanceTests {
    static func microseconds(_ iterations: Int, _ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<iterations { try body() }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations) / 1_000
    }

    @Test func es256VerifyCost() throws {
        let privateKey = try ECPrivateKey.generateP256()
        let spki = privateKey.publicKey.spkiDER
        // About the size of an App Store signed transaction's signing input.
        let message = [UInt8](repeating: UInt8(ascii: "e"), count: 1_500)
        let signature = try privateKey.signES256(message)
        let key = try ECPublicKey(spkiDER: spki)

        var allValid = true
        _ = Self.microseconds(50) { allValid = allValid && key.isValidES256Signature(signature, for: message) }
        let verify = Self.microseconds(2_000) { allValid = allValid && key.isValidES256Signature(signature, for: message) }
        let importKey = try Self.microseconds(2_000) { _ = try ECPublicKey(spkiDER: spki) }
        let sign = try Self.microseconds(500) { _ = try privateKey.signES256(message) }
        print(String(format: "OpenSSLCrypto ES256: verify %.1f µs, import SPKI %.1f µs, sign %.1f µs (1.5 KB message)",
                     verify, importKey, sign))
        #expect(allValid)
    }

    @Test(.enabled(if: OpenSSLCLI.isAvailable, "openssl CLI not installed"))
    func certificateCosts() throws {
        let pki = try TestPKI.generated.get()
        let store = try TrustStore(roots: [pki.rootA])
        let time = pki.leaf.notBefore.addingTimeInterval(3_600)
        let leafDER = pki.leaf.der
        let parse = try Self.microseconds(300) { _ = try Certificate(der: leafDER) }
        let chain = try Self.microseconds(300) {
            _ = try store.verifyChain(leaf: pki.leaf, intermediates: [pki.intermediate], at: time)
        }
        let leafKey = try Self.microseconds(1_000) { _ = try pki.leaf.publicKey() }
        print(String(format: "OpenSSLCrypto X.509: parse %.1f µs, verify 3-certificate chain %.1f µs, leaf publicKey() %.1f µs",
                     parse, chain, leafKey))
    }

    @Test func rs256VerifyCost() throws {
        let vector = try Fixtures.jwsVector("rfc7515-a2-rs256.json")
        let n = base64URLDecode(vector.jwk.n ?? "")
        let e = base64URLDecode(vector.jwk.e ?? "")
        let key = try RSAPublicKey(modulus: n, exponent: e)
        var allValid = true
        let verify = Self.microseconds(2_000) {
            allValid = allValid && key.isValidRS256Signature(vector.signature, for: vector.signingInput)
        }
        let importKey = try Self.microseconds(2_000) { _ = try RSAPublicKey(modulus: n, exponent: e) }
        print(String(format: "OpenSSLCrypto RS256: verify %.1f µs, import JWK %.1f µs", verify, importKey))
        #expect(allValid)
    }
}
