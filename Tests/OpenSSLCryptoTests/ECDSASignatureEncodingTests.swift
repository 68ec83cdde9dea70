import Testing
import OpenSSLCrypto

@Suite struct ECDSASignatureEncodingTests {
    @Test func rawToDERDropsLeadingZerosAndPadsHighBits() throws {
        // r = 1 (31 leading zero bytes), s = 0x80 00..00 (top bit set, needs a 0x00 pad).
        let raw = [UInt8](repeating: 0, count: 31) + [0x01] + [0x80] + [UInt8](repeating: 0, count: 31)
        let der = try ECDSASignatureEncoding.rawToDER(raw)
        let expected: [UInt8] = [0x30, 0x26, 0x02, 0x01, 0x01, 0x02, 0x21, 0x00, 0x80]
            + [UInt8](repeating: 0, count: 31)
        #expect(der == expected)
        #expect(try ECDSASignatureEncoding.derToRaw(der) == raw)
    }

    @Test func zeroHalvesEncodeAsIntegerZero() throws {
        let raw = [UInt8](repeating: 0, count: 64)
        #expect(try ECDSASignatureEncoding.rawToDER(raw) == [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00])
        #expect(try ECDSASignatureEncoding.derToRaw([0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00]) == raw)
    }

    @Test func randomRoundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var raw = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Force leading zero bytes in r or s now and then.
            if Bool.random() { raw[0] = 0; raw[1] = UInt8.random(in: 0...0x7F) }
            if Bool.random() { raw[32] = 0 }
            let der = try ECDSASignatureEncoding.rawToDER(raw)
            #expect(try ECDSASignatureEncoding.derToRaw(der) == raw)
        }
    }

    @Test func largerCoordinatesUseLongFormLengths() throws {
        // P-521 sized halves (66 bytes each) push the SEQUENCE past 127 bytes.
        let raw = [UInt8](repeating: 0xFF, count: 132)
        let der = try ECDSASignatureEncoding.rawToDER(raw)
        #expect(Array(der.prefix(3)) == [0x30, 0x81, 0x8A])
        #expect(try ECDSASignatureEncoding.derToRaw(der, coordinateByteCount: 66) == raw)
    }

    @Test(arguments: [
        ("odd length", [UInt8](repeating: 1, count: 63)),
        ("empty", []),
    ])
    func rawToDERRejects(_ label: String, _ raw: [UInt8]) {
        #expect(throws: CryptoError.self, "\(label)") { try ECDSASignatureEncoding.rawToDER(raw) }
    }

    @Test(arguments: [
        ("wrong outer tag", [0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01] as [UInt8]),
        ("trailing byte", [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00]),
        ("truncated", [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01]),
        ("negative r", [0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01]),
        ("non-minimal r", [0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01]),
        ("empty r", [0x30, 0x05, 0x02, 0x00, 0x02, 0x01, 0x01]),
        ("long form for short length", [0x30, 0x81, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]),
        ("third integer", [0x30, 0x09, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]),
        ("indefinite length", [0x30, 0x80, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00, 0x00]),
        ("empty", []),
    ])
    func derToRawRejects(_ label: String, _ der: [UInt8]) {
        #expect(throws: CryptoError.self, "\(label)") { try ECDSASignatureEncoding.derToRaw(der) }
    }

    @Test func derToRawRejectsIntegersWiderThanTheCurve() throws {
        let raw = [UInt8](repeating: 0x7F, count: 66)
        let der = try ECDSASignatureEncoding.rawToDER(raw)  // 33-byte r and s
        #expect(throws: CryptoError.self) { try ECDSASignatureEncoding.derToRaw(der, coordinateByteCount: 32) }
        #expect(throws: CryptoError.self) { try ECDSASignatureEncoding.derToRaw(der, coordinateByteCount: 0) }
    }
}
