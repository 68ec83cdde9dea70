@testable import FunctionRuntime
import Testing

@Suite("Constant-time token comparison")
struct AdminAuthorizationTests {
    @Test func comparesWholeValues() {
        #expect(AdminAuthorization.constantTimeEquals(Array("abc".utf8), Array("abc".utf8)))
        #expect(!AdminAuthorization.constantTimeEquals(Array("abc".utf8), Array("abd".utf8)))
        #expect(!AdminAuthorization.constantTimeEquals(Array("abc".utf8), Array("abcd".utf8)))
        #expect(!AdminAuthorization.constantTimeEquals([], Array("a".utf8)))
    }

    @Test func anEmptyConfiguredTokenNeverMatches() {
        #expect(!AdminAuthorization.accepts(header: "Bearer ", token: ""))
        #expect(!AdminAuthorization.accepts(header: nil, token: "t"))
    }
}
