import StorekeeperCore
import Testing

/// Pins the acceptance rules the three callers (x5c, receipt data, the data key) relied on
/// before they shared this decoder.
@Suite("Standard base64")
struct Base64Tests {
    @Test func decodesPaddedText() {
        #expect(Base64.decode("QUJD") == Array("ABC".utf8))
        #expect(Base64.decode("QUI=") == Array("AB".utf8))
        #expect(Base64.decode("QQ==") == Array("A".utf8))
        #expect(Base64.decode("") == [])
    }

    @Test func requiresPaddingByDefault() {
        #expect(Base64.decode("QUI") == nil)
        #expect(Base64.decode("QQ") == nil)
        #expect(Base64.decode("QQ=") == nil)
    }

    @Test func optionalPaddingStillRefusesImpossibleLengths() {
        #expect(Base64.decode("QUI", padding: .optional) == Array("AB".utf8))
        #expect(Base64.decode("QQ", padding: .optional) == Array("A".utf8))
        #expect(Base64.decode("QQ==", padding: .optional) == Array("A".utf8))
        #expect(Base64.decode("QUJDR", padding: .optional) == nil)
    }

    @Test func refusesWhitespaceAndOtherAlphabets() {
        for padding in [Base64.Padding.required, .optional] {
            #expect(Base64.decode("QUJD\n", padding: padding) == nil)
            #expect(Base64.decode("Q UJD", padding: padding) == nil)
            #expect(Base64.decode("-_8=", padding: padding) == nil)
            #expect(Base64.decode("QQ==QQ==", padding: padding) == nil)
        }
    }
}
