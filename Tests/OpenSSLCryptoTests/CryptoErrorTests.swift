import Testing
import OpenSSLCrypto

@Suite struct CryptoErrorTests {
    @Test func explicitInitialisationIsIdempotent() throws {
        try CryptoLibrary.initialise()
        try CryptoLibrary.initialise()
        #expect(Digest.sha256([]).count == 32)
    }

    @Test func carriesTheOperationAndOpenSSLText() throws {
        let error = #expect(throws: CryptoError.self) {
            try ECPrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nMAA=\n-----END PRIVATE KEY-----\n")
        }
        #expect(error?.operation.isEmpty == false)
        #expect(error?.message.isEmpty == false)
        #expect(error?.description.contains("failed") == true)
    }

    @Test func theErrorQueueIsEmptiedBetweenFailures() throws {
        let vector = try Fixtures.jwsVector("rfc7515-a3-es256.json")
        var y = base64URLDecode(vector.jwk.y ?? "")
        y[0] ^= 0x01
        let first = #expect(throws: CryptoError.self) { try ECPublicKey(x: base64URLDecode(vector.jwk.x ?? ""), y: y) }
        #expect(first?.message.contains("not on curve") == true)
        let second = #expect(throws: CryptoError.self) { try Certificate(der: [0x30, 0x03, 0x02, 0x01, 0x01]) }
        #expect(second?.message.contains("not on curve") == false, "\(String(describing: second))")
    }
}
