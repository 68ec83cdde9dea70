import StorekeeperCore
import Testing

@Suite("Base64URL")
struct Base64URLTests {
    @Test func roundTripsEveryLength() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
        }
    }

    @Test func knownValues() {
        // RFC 7515 §2 and RFC 4648 §10 test vectors, in the url alphabet without padding.
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64URL.encode(Array("fooba".utf8)) == "Zm9vYmE")
        #expect(Base64URL.encode([0x03, 0xEC, 0xFF, 0xE0]) == "A-z_4A")
    }

    @Test(arguments: ["Zm9vYmE=", "Zm9v YmFy", "Zm9vY", "Zm+v", "Zm/v", "Zm9vYmF\n"])
    func rejectsWhatIsNotStrictBase64URL(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func rejectsNonZeroTrailingBits() {
        // "Zh" and "Zg" would both decode to "f" if the spare bits were ignored.
        #expect(Base64URL.decode("Zg") == Array("f".utf8))
        #expect(Base64URL.decode("Zh") == nil)
    }
}
