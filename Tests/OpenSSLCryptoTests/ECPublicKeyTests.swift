import Testing
import OpenSSLCrypto

@Suite struct ECPublicKeyTests {
    static func rfcKey() throws -> (ECPublicKey, JWSVector) {
        let vector = try Fixtures.jwsVector("rfc7515-a3-es256.json")
        let key = try ECPublicKey(
            x: base64URLDecode(vector.jwk.x ?? ""), y: base64URLDecode(vector.jwk.y ?? ""))
        return (key, vector)
    }

    @Test func rfc7515AppendixA3Verifies() throws {
        let (key, vector) = try Self.rfcKey()
        #expect(vector.signature.count == 64)
        #expect(key.isValidES256Signature(vector.signature, for: vector.signingInput))
    }

    @Test func tamperedMessageOrSignatureFails() throws {
        let (key, vector) = try Self.rfcKey()
        var message = vector.signingInput
        message[message.count - 1] ^= 0x01
        #expect(!key.isValidES256Signature(vector.signature, for: message))
        for index in [0, 31, 32, 63] {
            var signature = vector.signature
            signature[index] ^= 0x40
            #expect(!key.isValidES256Signature(signature, for: vector.signingInput), "flipped byte \(index)")
        }
        // r || s swapped, all zeros, all ones (s above the group order).
        let swapped = Array(vector.signature[32...] + vector.signature[..<32])
        #expect(!key.isValidES256Signature(swapped, for: vector.signingInput))
        #expect(!key.isValidES256Signature([UInt8](repeating: 0, count: 64), for: vector.signingInput))
        #expect(!key.isValidES256Signature([UInt8](repeating: 0xFF, count: 64), for: vector.signingInput))
    }

    @Test(arguments: [0, 1, 63, 65, 70, 72, 128])
    func wrongLengthRawSignatureIsFalse(length: Int) throws {
        let (key, vector) = try Self.rfcKey()
        let signature = Array((vector.signature + vector.signature).prefix(length))
        #expect(!key.isValidES256Signature(signature, for: vector.signingInput))
    }

    @Test func derSignatureIsNotAcceptedAsRaw() throws {
        let (key, vector) = try Self.rfcKey()
        let der = try ECDSASignatureEncoding.rawToDER(vector.signature)
        #expect(!key.isValidES256Signature(der, for: vector.signingInput))
    }

    @Test func spkiRoundTrip() throws {
        let (key, vector) = try Self.rfcKey()
        #expect(key.spkiDER.count == 91)
        let reparsed = try ECPublicKey(spkiDER: key.spkiDER)
        #expect(reparsed == key)
        #expect(reparsed.isValidES256Signature(vector.signature, for: vector.signingInput))
    }

    @Test func pointNotOnTheCurveIsRejected() throws {
        let vector = try Fixtures.jwsVector("rfc7515-a3-es256.json")
        var y = base64URLDecode(vector.jwk.y ?? "")
        y[31] ^= 0x01
        let error = #expect(throws: CryptoError.self) {
            try ECPublicKey(x: base64URLDecode(vector.jwk.x ?? ""), y: y)
        }
        // The message is OpenSSL's own.
        #expect(error?.message.contains("not on curve") == true, "\(String(describing: error))")
    }

    @Test func wrongCoordinateLengthsAreRejected() {
        #expect(throws: CryptoError.self) { try ECPublicKey(x: [UInt8](repeating: 1, count: 31), y: [UInt8](repeating: 1, count: 32)) }
        #expect(throws: CryptoError.self) { try ECPublicKey(x: [UInt8](repeating: 1, count: 33), y: [UInt8](repeating: 1, count: 32)) }
    }

    @Test func malformedSPKIIsRejected() throws {
        let (key, _) = try Self.rfcKey()
        #expect(throws: CryptoError.self) { try ECPublicKey(spkiDER: []) }
        #expect(throws: CryptoError.self) { try ECPublicKey(spkiDER: Array(key.spkiDER.dropLast())) }
        #expect(throws: CryptoError.self) { try ECPublicKey(spkiDER: key.spkiDER + [0x00]) }
        var offCurve = key.spkiDER
        offCurve[90] ^= 0x01
        #expect(throws: CryptoError.self) { try ECPublicKey(spkiDER: offCurve) }
    }

    @Test func pemWithOtherLabelsIsRejected() {
        #expect(throws: CryptoError.self) { try ECPublicKey(pem: "not a pem") }
        #expect(throws: CryptoError.self) {
            try ECPublicKey(pem: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
        }
    }
}

/// Keys made by the `openssl` CLI: other curves, other algorithms, compressed points.
@Suite(.enabled(if: OpenSSLCLI.isAvailable, "openssl CLI not installed: interop tests skipped"))
struct ECPublicKeyInteropTests {
    @Test func pemAndCompressedPointsAreAccepted() throws {
        let directory = try makeTemporaryDirectory("ec-pub")
        defer { removeTemporaryDirectory(directory) }
        try OpenSSLCLI.run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "k.pem"], in: directory)
        let uncompressed = String(decoding: try OpenSSLCLI.run(["ec", "-in", "k.pem", "-pubout"], in: directory), as: UTF8.self)
        let compressed = String(decoding: try OpenSSLCLI.run(
            ["ec", "-in", "k.pem", "-pubout", "-conv_form", "compressed"], in: directory), as: UTF8.self)
        let plain = try ECPublicKey(pem: uncompressed)
        let packed = try ECPublicKey(pem: compressed)
        #expect(packed.spkiDER.count < plain.spkiDER.count)

        let privateKey = try ECPrivateKey(pem: try String(contentsOf: directory.appendingPathComponent("k.pem"), encoding: .utf8))
        #expect(privateKey.publicKey == plain)
        let message = Array("interop".utf8)
        let signature = try privateKey.signES256(message)
        #expect(plain.isValidES256Signature(signature, for: message))
        #expect(packed.isValidES256Signature(signature, for: message))
        // The point goes through the low-level EC API, the compressed SPKI through EVP: both
        // must refuse what the other refuses.
        for key in [plain, packed] {
            #expect(!key.isValidES256Signature(signature, for: message + [0]))
            var flipped = signature
            flipped[40] ^= 0x01
            #expect(!key.isValidES256Signature(flipped, for: message))
        }
    }

    @Test func otherCurvesAndAlgorithmsAreRejected() throws {
        let directory = try makeTemporaryDirectory("ec-other")
        defer { removeTemporaryDirectory(directory) }
        try OpenSSLCLI.run(["ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", "p384.pem"], in: directory)
        let p384 = String(decoding: try OpenSSLCLI.run(["ec", "-in", "p384.pem", "-pubout"], in: directory), as: UTF8.self)
        let error = #expect(throws: CryptoError.self) { try ECPublicKey(pem: p384) }
        #expect(error?.message.contains("secp384r1") == true, "\(String(describing: error))")

        try OpenSSLCLI.run(["genrsa", "-out", "rsa.pem", "2048"], in: directory)
        let rsa = String(decoding: try OpenSSLCLI.run(["rsa", "-in", "rsa.pem", "-pubout"], in: directory), as: UTF8.self)
        #expect(throws: CryptoError.self) { try ECPublicKey(pem: rsa) }
    }
}
