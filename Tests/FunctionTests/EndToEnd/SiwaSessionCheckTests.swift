import Foundation
import StorekeeperCore
import Testing

extension EndToEnd.SignInWithAppleTests {
    @Test("A session check that Apple refuses for our client secret (invalid_client) leaves the session standing: refreshCheck unavailable")
    func aSessionStandsWhenAppleRefusesOurClient() throws {
        let d = try SignInDeployment()
        try d.control("/control/user", ["sub": "001777.unavailable000000000000000000.0008", "email": "u@example.org"])
        let (reply, _) = try d.signInOnTheWeb()
        let sessionToken = try #require(SignInDeployment.cookieValue(reply.header("set-cookie")))
        var environment = d.environment
        environment["SIWA_KEY_ID"] = "WRONGKEY00"
        let result = try FunctionBinary(name: "siwa-verify-token").run(
            stdin: try JSONSerialization.data(withJSONObject: ["sessionToken": sessionToken]), environment: environment)
        #expect(result.exitCode == 0, "\(result.stdoutText)")
        let answer = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(answer["valid"] as? Bool == true && answer["refreshCheck"] as? String == "unavailable", "\(answer)")
        let refresh = try #require(try d.received().last { $0["path"] as? String == "/auth/token" && $0["grant_type"] as? String == "refresh_token" })
        #expect(refresh["client_secret_problem"] as? String == "kid is not the key id")
        #expect(result.stderrText.contains("refresh_check_unavailable") && !result.stderrText.contains("eyJ"))
    }
}
