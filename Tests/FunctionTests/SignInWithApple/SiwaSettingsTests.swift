import Foundation
import Testing

@Suite("Sign in with Apple settings: where Apple's ID server may be")
struct SiwaBaseURLTests {
    /// siwa-verify-token with a malformed token: exit 78 when the base URL is refused at
    /// start-up, else the token's own refusal (exit 65), without any connection.
    func exitCode(baseURL: String) throws -> Int32 {
        let result = try FunctionBinary(name: "siwa-verify-token").run(
            stdin: Data(#"{"identityToken": "not-a-jwt"}"#.utf8),
            environment: ["SIWA_CLIENT_IDS": "com.example.web", "SIWA_BASE_URL": baseURL])
        return result.exitCode
    }

    @Test(arguments: ["https://appleid.apple.com", "https://appleid.example:8443/base", "http://127.0.0.1:8080",
                      "http://localhost:1234/", "http://localhost"])
    func httpsOrLoopbackIsAccepted(_ url: String) throws {
        #expect(try exitCode(baseURL: url) == 65)
    }

    @Test(arguments: ["http://localhost.example.com", "http://127.0.0.1.example.com:80", "http://localhost@evil.example",
                      "http://localhostx:80", "http://example.com", "ftp://localhost", "https://", "http://localhost:port"])
    func anyOtherPlainHTTPIsRefused(_ url: String) throws {
        #expect(try exitCode(baseURL: url) == 78)
    }
}
