import Testing
import OpenSSLCrypto

@Suite struct RSAPublicKeyTests {
    static func rfcKey() throws -> (RSAPublicKey, JWSVector) {
        let vector = try Fixtures.jwsVector("rfc7515-a2-rs256.json")
        let key = try RSAPublicKey(
            modulus: base64URLDecode(vector.jwk.n ?? ""), exponent: base64URLDecode(vector.jwk.e ?? ""))
        return (key, vector)
    }

    @Test func rfc7515AppendixA2Verifies() throws {
        let (key, vector) = try Self.rfcKey()
        #expect(key.modulus.count == 256)
        #expect(key.exponent == [0x01, 0x00, 0x01])
        #expect(key.isValidRS256Signature(vector.signature, for: vector.signingInput))
    }

    @Test func tamperedMessageOrSignatureFails() throws {
        let (key, vector) = try Self.rfcKey()
        var message = vector.signingInput
        message[0] ^= 0x01
        #expect(!key.isValidRS256Signature(vector.signature, for: message))
        var signature = vector.signature
        signature[100] ^= 0x01
        #expect(!key.isValidRS256Signature(signature, for: vector.signingInput))
        #expect(!key.isValidRS256Signature(Array(vector.signature.dropFirst()), for: vector.signingInput))
        #expect(!key.isValidRS256Signature([0] + vector.signature, for: vector.signingInput))
        #expect(!key.isValidRS256Signature([], for: vector.signingInput))
        #expect(!key.isValidRS256Signature([UInt8](repeating: 0xFF, count: 256), for: vector.signingInput))
    }

    @Test func leadingZerosInTheJWKAreIgnored() throws {
        let (key, vector) = try Self.rfcKey()
        let padded = try RSAPublicKey(modulus: [0, 0] + key.modulus, exponent: [0] + key.exponent)
        #expect(padded == key)
        #expect(padded.isValidRS256Signature(vector.signature, for: vector.signingInput))
    }

    @Test func smallModulusIsRejected() throws {
        let (key, _) = try Self.rfcKey()
        // 2040 bits: one byte short of 2048.
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: Array(key.modulus.dropFirst()), exponent: key.exponent) }
        // 2047 bits: top bit cleared.
        var modulus = key.modulus
        modulus[0] = 0x7F
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: modulus, exponent: key.exponent) }
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: [], exponent: key.exponent) }
    }

    @Test func unusableExponentsAreRejected() throws {
        let (key, _) = try Self.rfcKey()
        for exponent: [UInt8] in [[], [0], [1], [0x01, 0x00, 0x00], [UInt8](repeating: 0xFF, count: 9)] {
            #expect(throws: CryptoError.self, "\(exponent)") { try RSAPublicKey(modulus: key.modulus, exponent: exponent) }
        }
    }
}
