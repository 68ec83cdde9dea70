import Foundation
import OpenSSLCrypto
import StorekeeperCore
import Testing

/// One verifier for the catalog's apps: each piece of signed data is checked against the app
/// its bundle id names, with that app's environments and App Apple ID.
@Suite("SignedDataVerifier: several apps")
struct SeveralAppsVerifierTests {
    static let second = "com.example.second"

    static func verifier() throws -> SignedDataVerifier {
        SignedDataVerifier(configuration: .init(trustAnchors: TrustAnchors([try TestPKI.certificate("root")]), apps: [
            CatalogApp(bundleId: TestPKI.bundleId, appAppleId: TestPKI.appAppleId, environments: [.production, .sandbox]),
            CatalogApp(bundleId: second, appAppleId: 2_222_222_222, environments: [.production]),
        ]))
    }

    private func kind(_ jws: String) throws -> VerificationErrorKind? {
        let verifier = try Self.verifier()
        do {
            _ = try verifier.verify(jws, now: TestPKI.fixedTime)
            return nil
        } catch {
            return error.kind
        }
    }

    @Test func eachAppsDataIsCheckedByItsOwnRulesAndSaysWhoseItIs() throws {
        let forFirst = try Self.verifier().verify(try TestPKI.sign(TestPKI.notification(environment: "Production")), now: TestPKI.fixedTime)
        #expect(forFirst.bundleId == TestPKI.bundleId)
        let productionSecond = try TestPKI.sign(TestPKI.notification(
            environment: "Production", bundleId: Self.second, appAppleId: 2_222_222_222))
        #expect(try Self.verifier().verify(productionSecond, now: TestPKI.fixedTime).bundleId == Self.second)
    }

    @Test func anAppAppleIdIsItsOwnAppsOnly() throws {
        // The first app's App Apple ID on the second app's Production notification.
        #expect(try kind(TestPKI.sign(TestPKI.notification(environment: "Production", bundleId: Self.second,
                                                            appAppleId: TestPKI.appAppleId))) == .invalidAppIdentifier)
    }

    @Test func anEnvironmentIsItsOwnAppsOnly() throws {
        // Sandbox is accepted for the first app, not for the second.
        #expect(try kind(TestPKI.sign(TestPKI.transaction(environment: "Sandbox", bundleId: Self.second))) == .invalidEnvironment)
        #expect(try kind(TestPKI.sign(TestPKI.transaction(environment: "Sandbox"))) == nil)
        // Renewal info names no app: any app's environment will do.
        #expect(try kind(TestPKI.sign(TestPKI.renewalInfo(environment: "Sandbox"))) == nil)
        #expect(try kind(TestPKI.sign(TestPKI.renewalInfo(environment: "Xcode"))) == .invalidEnvironment)
    }

    @Test func aBundleIdNoAppHasIsInvalidAppIdentifier() throws {
        #expect(try kind(TestPKI.sign(TestPKI.transaction(bundleId: "com.example.third"))) == .invalidAppIdentifier)
    }

    @Test func aNotificationNeverCarriesAnotherAppsTransaction() throws {
        let foreign = try TestPKI.sign(TestPKI.transaction(environment: "Production", bundleId: Self.second))
        #expect(try kind(TestPKI.sign(TestPKI.notification(environment: "Production", transactionJWS: foreign))) == .invalidAppIdentifier)
    }
}
