import Testing
import OpenSSLCrypto

@Suite struct DigestTests {
    @Test func sha256KnownAnswers() {
        // FIPS 180-2 examples.
        #expect(Digest.sha256(Array("abc".utf8))
            == hexBytes("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        #expect(Digest.sha256([])
            == hexBytes("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
    }

    @Test func sha256OfALargeInput() {
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Digest.sha256(million)
            == hexBytes("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"))
    }
}
