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

@Suite("siwa-verify-token: the refresh-check settings")
struct SiwaVerifyTokenRefreshSettingsTests {
    let refreshCheck = ["SIWA_CLIENT_IDS": "com.example.web", "SIWA_TEAM_ID": "TEAM123456", "SIWA_KEY_ID": "KEY1234567",
                        "SIWA_PRIVATE_KEY": "/nonexistent/siwa-key.p8", "STOREKEEPER_DATA_KEY": String(repeating: "5a", count: 32)]

    @Test func theIdentityTokenPathDoesNotReadTheKey() throws {
        // An unreadable .p8 no longer stops the start: the identity token is judged (exit 65).
        let result = try FunctionBinary(name: "siwa-verify-token").run(stdin: Data(#"{"identityToken": "not-a-jwt"}"#.utf8),
                                                                       environment: refreshCheck)
        #expect(result.exitCode == 65, "\(result.stdoutText)")
    }

    @Test(arguments: ["SIWA_TEAM_ID", "SIWA_KEY_ID", "SIWA_PRIVATE_KEY", "STOREKEEPER_DATA_KEY"])
    func halfConfiguredIsStillExit78NamingTheMissingVariable(_ missing: String) throws {
        var environment = refreshCheck
        environment[missing] = nil
        let result = try FunctionBinary(name: "siwa-verify-token").run(stdin: Data(#"{"identityToken": "not-a-jwt"}"#.utf8),
                                                                       environment: environment)
        #expect(result.exitCode == 78)
        #expect(result.stdoutText.contains(missing), "\(result.stdoutText)")
    }
}
