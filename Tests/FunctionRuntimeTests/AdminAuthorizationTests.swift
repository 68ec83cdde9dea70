@testable import FunctionRuntime
import Testing

// The byte comparison itself is ConstantTime.equals, tested in StorekeeperCoreTests.
@Suite("Admin bearer-token check")
struct AdminAuthorizationTests {
    @Test func comparesTheWholeToken() {
        #expect(AdminAuthorization.accepts(header: "Bearer abc", token: "abc"))
        #expect(AdminAuthorization.accepts(header: "bearer   abc", token: "abc"))
        #expect(!AdminAuthorization.accepts(header: "Bearer abd", token: "abc"))
        #expect(!AdminAuthorization.accepts(header: "Bearer abcd", token: "abc"))
        #expect(!AdminAuthorization.accepts(header: "Bearer ab", token: "abc"))
        #expect(!AdminAuthorization.accepts(header: "Bearer  ", token: "a"))
    }

    @Test func anEmptyConfiguredTokenNeverMatches() {
        #expect(!AdminAuthorization.accepts(header: "Bearer ", token: ""))
        #expect(!AdminAuthorization.accepts(header: nil, token: "t"))
    }
}
