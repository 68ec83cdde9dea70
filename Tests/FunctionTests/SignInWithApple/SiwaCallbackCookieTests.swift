import Foundation
import Testing

/// siwa-callback, the built binary behind CGI: every answer drops the pre-authorization
/// cookie, the refusals too (a refusal's status and body stay what they were).
@Suite("siwa-callback over CGI: error answers clear the pre-authorization cookie")
struct SiwaCallbackCookieTests {
    static let clearing = "__Host-storekeeper_siwa=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=None"

    struct CGIAnswer {
        var status: String
        var headers: [String]
        var body: String
        var setCookies: [String] { headers.filter { $0.hasPrefix("Set-Cookie: ") }.map { String($0.dropFirst("Set-Cookie: ".count)) } }
    }

    /// Posts `form` as Apple's form_post, with a pre-authorization cookie that matches nothing.
    func post(_ form: String) throws -> (answer: CGIAnswer, exitCode: Int32) {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-cookie-\(UUID().uuidString).db")
        defer { try? FileManager.default.removeItem(at: store) }
        let environment = [
            "GATEWAY_INTERFACE": "CGI/1.1", "REQUEST_METHOD": "POST", "SCRIPT_NAME": "/auth/apple/callback",
            "PATH_INFO": "", "QUERY_STRING": "", "SERVER_PROTOCOL": "HTTP/1.1",
            "CONTENT_TYPE": "application/x-www-form-urlencoded", "CONTENT_LENGTH": String(form.utf8.count),
            "HTTP_COOKIE": "__Host-storekeeper_siwa=" + String(repeating: "ab", count: 32),
            "SIWA_CLIENT_IDS": "com.example.web,com.example.storekeeper", "SIWA_BASE_URL": "http://127.0.0.1:9",
            "SIWA_TEAM_ID": "TEAM123456", "SIWA_KEY_ID": "KEY1234567", "SIWA_PRIVATE_KEY": "Tests/Fixtures/pki/siwa-key.p8",
            "STOREKEEPER_DATA_KEY": String(repeating: "5a", count: 32),
            "SIWA_REDIRECT_URI": "https://app.example/auth/apple/callback", "SIWA_APP_URL": "https://app.example/home",
            "STORE_URL": "sqlite:" + store.path,
        ]
        let result = try FunctionBinary(name: "siwa-callback").run(stdin: Data(form.utf8), environment: environment)
        let parts = result.stdoutText.components(separatedBy: "\r\n\r\n")
        let headers = (parts.first ?? "").components(separatedBy: "\r\n")
        let answer = CGIAnswer(status: headers.first ?? "", headers: Array(headers.dropFirst()), body: parts.dropFirst().joined(separator: "\r\n\r\n"))
        return (answer, result.exitCode)
    }

    @Test func anUnknownStateIsRefusedAsBeforeAndClearsTheCookie() throws {
        let (answer, exitCode) = try post("code=c123&state=" + String(repeating: "f", count: 64))
        #expect(answer.status == "Status: 400 Bad Request")
        #expect(exitCode == 65)
        #expect(answer.body == #"{"error":{"code":"invalid_state","message":"the state is unknown, expired or already used"}}"#)
        #expect(answer.setCookies == [Self.clearing], "\(answer.headers)")
    }

    @Test func aMalformedPostIsRefusedAsBeforeAndClearsTheCookie() throws {
        let (answer, exitCode) = try post("state=" + String(repeating: "f", count: 64))
        #expect(answer.status == "Status: 400 Bad Request")
        #expect(exitCode == 65)
        #expect(answer.body == #"{"error":{"code":"invalid_request","message":"missing field `code`"}}"#)
        #expect(answer.setCookies == [Self.clearing], "\(answer.headers)")
    }

    @Test func aCancelledSignInClearsItOnce() throws {
        let (answer, exitCode) = try post("error=user_cancelled_authorize&state=" + String(repeating: "f", count: 64))
        #expect(answer.status == "Status: 302 Found")
        #expect(exitCode == 0)
        #expect(answer.setCookies == [Self.clearing], "\(answer.headers)")
    }
}
