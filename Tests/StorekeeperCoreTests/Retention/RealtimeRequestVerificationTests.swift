import Foundation
import StorekeeperCore
import Testing

/// A realtime request is App Store signed data like any other: chain, signature, then the app
/// (by App Apple ID only) and the environment.
@Suite("Realtime requests: verified as Apple's signed data, the app named by appAppleId")
struct RealtimeRequestVerificationTests {
    static func payload(appAppleId: Int64? = TestPKI.appAppleId, environment: String = "Sandbox") -> [String: Any] {
        var payload: [String: Any] = [
            "originalTransactionId": "2000000001", "productId": "com.example.pro.yearly", "userLocale": "en-US",
            "requestIdentifier": "3f1c2b7a-9d4e-4f60-8a1b-5c6d7e8f9a01", "environment": environment,
            "signedDate": TestPKI.fixedTimeMilliseconds,
        ]
        if let appAppleId { payload["appAppleId"] = appAppleId }
        return payload
    }

    private func code(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as VerificationError {
            return error.code
        } catch {
            return "\(error)"
        }
    }

    @Test func aSignedRequestIsDecodedWithItsApp() throws {
        let verified = try TestPKI.verifier().verifyRealtimeRequest(try TestPKI.sign(Self.payload()), now: TestPKI.fixedTime)
        #expect(verified.payload.originalTransactionId == "2000000001")
        #expect(verified.payload.productId == "com.example.pro.yearly")
        #expect(verified.payload.userLocale == "en-US")
        #expect(verified.payload.environment == .sandbox)
        #expect(verified.signed.bundleId == TestPKI.bundleId)
        #expect(verified.signed.type == .realtimeRequest)
    }

    @Test func theKindIsInferredSoOtherDataIsNotTakenForARequest() throws {
        let verifier = try TestPKI.verifier()
        let request = try TestPKI.sign(Self.payload())
        #expect(try verifier.verify(request, now: TestPKI.fixedTime).type == .realtimeRequest)
        #expect(code { _ = try verifier.verify(request, as: .renewalInfo, now: TestPKI.fixedTime) } == "INVALID_JWT_FORMAT")
        let renewal = try TestPKI.sign(TestPKI.renewalInfo())
        #expect(code { _ = try verifier.verifyRealtimeRequest(renewal, now: TestPKI.fixedTime) } == "INVALID_JWT_FORMAT")
    }

    @Test func anotherAppsRequestIsRefusedInEveryEnvironment() throws {
        let verifier = try TestPKI.verifier()
        for environment in ["Sandbox", "Production"] {
            let request = try TestPKI.sign(Self.payload(appAppleId: 42, environment: environment))
            #expect(code { _ = try verifier.verifyRealtimeRequest(request, now: TestPKI.fixedTime) } == "INVALID_APP_IDENTIFIER")
        }
        let anonymous = try TestPKI.sign(Self.payload(appAppleId: nil, environment: "Production"))
        #expect(code { _ = try verifier.verifyRealtimeRequest(anonymous, now: TestPKI.fixedTime) } == "INVALID_APP_IDENTIFIER")
    }

    @Test func aSandboxRequestWithoutAnAppAppleIdIsTheOnlyApps() throws {
        let request = try TestPKI.sign(Self.payload(appAppleId: nil))
        #expect(try TestPKI.verifier().verifyRealtimeRequest(request, now: TestPKI.fixedTime).signed.bundleId == TestPKI.bundleId)
        let two = SignedDataVerifier(configuration: .init(trustAnchors: TrustAnchors([try TestPKI.certificate("root")]), apps: [
            CatalogApp(bundleId: TestPKI.bundleId, appAppleId: TestPKI.appAppleId, environments: [.sandbox]),
            CatalogApp(bundleId: "com.example.other", appAppleId: 99, environments: [.sandbox]),
        ]))
        #expect(code { _ = try two.verifyRealtimeRequest(request, now: TestPKI.fixedTime) } == "INVALID_APP_IDENTIFIER",
                "with two apps, which one's rules?")
    }

    @Test func aSandboxOnlyAppWithoutAnAppAppleIdStillAnswersItsSandbox() throws {
        let verifier = SignedDataVerifier(configuration: .init(
            trustAnchors: TrustAnchors([try TestPKI.certificate("root")]), bundleId: TestPKI.bundleId, appAppleId: nil,
            acceptedEnvironments: [.sandbox]))
        let request = try TestPKI.sign(Self.payload(appAppleId: 5))
        #expect(try verifier.verifyRealtimeRequest(request, now: TestPKI.fixedTime).signed.bundleId == TestPKI.bundleId)
    }

    @Test func badSignatureChainAndEnvironmentAreRefusedInOrder() throws {
        let verifier = try TestPKI.verifier(environments: [.production])
        let wrongKey = try TestPKI.sign(Self.payload(), key: "leaf-other-root")
        #expect(code { _ = try verifier.verifyRealtimeRequest(wrongKey, now: TestPKI.fixedTime) } == "VERIFICATION_FAILURE")
        let expired = try TestPKI.sign(Self.payload(), key: "leaf-expired", chain: ["leaf-expired", "intermediate", "root"])
        #expect(code { _ = try verifier.verifyRealtimeRequest(expired, now: TestPKI.fixedTime) } == "INVALID_CERTIFICATE")
        let sandbox = try TestPKI.sign(Self.payload())
        #expect(code { _ = try verifier.verifyRealtimeRequest(sandbox, now: TestPKI.fixedTime) } == "INVALID_ENVIRONMENT")
    }

    @Test func xcodeDataIsNeverTakenFromTheRealtimeRoute() throws {
        let verifier = try TestPKI.verifier(environments: [.sandbox, .xcode])
        let unsigned = try TestPKI.sign(Self.payload(environment: "Xcode"), key: "leaf-other-root")
        #expect(code { _ = try verifier.verifyRealtimeRequest(unsigned, now: TestPKI.fixedTime) } != nil)
    }
}
