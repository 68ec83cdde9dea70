import OpenSSLCrypto
import Testing

@Suite struct AESGCMKeyTests {
    let key = try! AESGCMKey(bytes: Array(0..<32))

    @Test func roundTrip() throws {
        let secret = Array("r1234.0.refresh-token".utf8)
        let box = try key.seal(secret, authenticating: Array("user-1".utf8))
        #expect(box.count == 12 + secret.count + 16)
        #expect(try key.open(box, authenticating: Array("user-1".utf8)) == secret)
        #expect(try key.open(try key.seal([])) == [])
    }

    @Test func everySealHasAFreshNonce() throws {
        let a = try key.seal(Array("same".utf8)), b = try key.seal(Array("same".utf8))
        #expect(a != b)
        #expect(Array(a.prefix(12)) != Array(b.prefix(12)))
    }

    @Test func anyChangeIsRefused() throws {
        let box = try key.seal(Array("secret".utf8), authenticating: Array("user-1".utf8))
        for index in [0, 11, 12, box.count - 17, box.count - 1] {
            var tampered = box
            tampered[index] ^= 0x01
            #expect(throws: CryptoError.self) { try key.open(tampered, authenticating: Array("user-1".utf8)) }
        }
        #expect(throws: CryptoError.self) { try key.open(box, authenticating: Array("user-2".utf8)) }
        #expect(throws: CryptoError.self) { try AESGCMKey(bytes: Array(1...32)).open(box, authenticating: Array("user-1".utf8)) }
        #expect(throws: CryptoError.self) { try key.open(Array(box.prefix(20))) }
    }

    @Test func aKeyIs32Bytes() {
        #expect(throws: CryptoError.self) { try AESGCMKey(bytes: Array(0..<16)) }
    }

    @Test func knownAnswer() throws {
        // NIST GCM test vector (gcmEncryptExtIV256, Count 0 with 128-bit plaintext), opened: the
        // key, nonce, ciphertext and tag from the vector decrypt to its plaintext.
        let key = try AESGCMKey(bytes: hexBytes("31bdadd96698c204aa9ce1448ea94ae1fb4a9a0b3c9d773b51bb1822666b8f22"))
        let box = hexBytes("0d18e06c7c725ac9e362e1ce") + hexBytes("fa4362189661d163fcd6a56d8bf0405a") + hexBytes("d636ac1bbedd5cc3ee727dc2ab4a9489")
        #expect(try key.open(box) == hexBytes("2db5168e932556f8089a0622981d017d"))
    }
}
