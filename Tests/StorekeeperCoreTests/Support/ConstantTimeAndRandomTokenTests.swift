import StorekeeperCore
import Testing

@Suite("Support: constant-time comparison and 256-bit tokens")
struct ConstantTimeAndRandomTokenTests {
    @Test func equalsComparesBytesAndStrings() {
        #expect(ConstantTime.equals(Array("abc".utf8), Array("abc".utf8)))
        #expect(!ConstantTime.equals(Array("abc".utf8), Array("abd".utf8)))
        #expect(!ConstantTime.equals("abc", "abcd"))
        #expect(ConstantTime.equals("", ""))
        #expect(!ConstantTime.equals("é", "e"))
    }

    @Test func hex256IsSixtyFourLowercaseHexDigitsAndFresh() {
        let token = RandomToken.hex256()
        #expect(token.count == 64 && token.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(token != RandomToken.hex256())
    }
}
