import Foundation
import Testing
import OpenSSLCrypto
@testable import StorekeeperCore

@Suite("Receipt verification")
struct ReceiptVerifierTests {
    @Test func aGoodReceiptVerifiesWithItsChain() throws {
        let reading = try ReceiptFixtures.verifier().read(der: try ReceiptFixtures.bytes("receipt-single.p7"))
        #expect(try reading.verification.get() == .init(environment: .production, chainVerified: true))
        #expect(try reading.verified().inAppPurchases.count == 1)
    }

    @Test func severalPurchasesInTheSandbox() throws {
        let receipt = try ReceiptFixtures.verifier().verify(der: try ReceiptFixtures.bytes("receipt-several.p7"))
        #expect(receipt.inAppPurchases.count == 4)
    }

    @Test func aSignerThatExpiredAfterTheReceiptWasMadeStillVerifies() throws {
        let receipt = try ReceiptFixtures.verifier().verify(der: try ReceiptFixtures.bytes("receipt-signer-expired-later.p7"))
        #expect(receipt.creationDate == ReceiptFixtures.date("2025-03-01T12:00:00Z"))
    }

    @Test func aSignerThatExpiredBeforeTheReceiptWasMadeDoesNot() throws {
        try expectRefused("receipt-signer-expired-before.p7", .invalidCertificate, containing: "expired")
    }

    @Test func tamperedContentIsAVerificationFailureButStillReads() throws {
        let reading = try ReceiptFixtures.verifier().read(der: try ReceiptFixtures.bytes("receipt-tampered.p7"))
        // The dry run can show what the forged receipt claims...
        #expect(reading.receipt.inAppPurchases.first?.transactionId == "1000000000000009")
        // ...and that it is forged.
        #expect(throws: ReceiptError(.verificationFailure, "")) { try reading.verified() }
    }

    @Test func aLookAlikeChainUnderAnotherRootIsRefused() throws {
        try expectRefused("receipt-other-root.p7", .invalidCertificate, containing: "unable to get local issuer")
    }

    /// Any certificate under Apple Inc. Root chains (a developer's own, under WWDR): only
    /// Apple's marker OIDs make it a receipt signer.
    @Test func aSignerWithoutTheReceiptSigningOIDIsRefused() throws {
        try expectRefused("receipt-signer-not-receipt-signer.p7", .invalidCertificate, containing: "1.2.840.113635.100.6.11.1")
    }

    @Test func anIntermediateWithoutTheWWDROIDIsRefused() throws {
        try expectRefused("receipt-intermediate-not-wwdr.p7", .invalidCertificate, containing: "1.2.840.113635.100.6.2.1")
    }

    @Test func xcodeReceiptsOnlyWhereXcodeIsAccepted() throws {
        try expectRefused("receipt-xcode.p7", .invalidEnvironment, containing: "Xcode")
        let reading = try ReceiptFixtures.verifier(environments: [.sandbox, .xcode]).read(der: try ReceiptFixtures.bytes("receipt-xcode.p7"))
        #expect(try reading.verification.get() == .init(environment: .xcode, chainVerified: false))
    }

    @Test func environmentNotAccepted() throws {
        let reading = try ReceiptFixtures.verifier(environments: [.production]).read(der: try ReceiptFixtures.bytes("receipt-several.p7"))
        #expect(throws: ReceiptError(.invalidEnvironment, "")) { try reading.verified() }
    }

    @Test func anotherAppsReceipt() throws {
        let reading = try ReceiptFixtures.verifier(bundleId: "com.example.other").read(der: try ReceiptFixtures.bytes("receipt-single.p7"))
        #expect(throws: ReceiptError(.invalidAppIdentifier, "")) { try reading.verified() }
    }

    @Test(arguments: ["receipt-truncated.p7", "pki/receipt-root.pem", "make-receipts.sh"])
    func notAReceiptAtAll(_ name: String) throws {
        let error = #expect(throws: ReceiptError.self) { try ReceiptFixtures.verifier().read(der: try ReceiptFixtures.bytes(name)) }
        #expect(error?.kind == .invalidReceiptFormat)
    }

    @Test func rootsThatCannotBeLoadedAreRetryable() throws {
        struct Missing: Error {}
        let verifier = ReceiptVerifier(configuration: .init(
            trustAnchors: TrustAnchors(load: { throw Missing() }), bundleId: "com.example.storekeeper",
            acceptedEnvironments: [.production]))
        let reading = try verifier.read(der: try ReceiptFixtures.bytes("receipt-single.p7"))
        #expect(throws: ReceiptError(.retryableVerificationFailure, "")) { try reading.verified() }
    }

    private func expectRefused(_ name: String, _ code: ReceiptErrorKind, containing text: String) throws {
        let reading = try ReceiptFixtures.verifier().read(der: try ReceiptFixtures.bytes(name))
        let error = #expect(throws: ReceiptError.self) { try reading.verified() }
        #expect(error?.kind == code, "\(name): \(String(describing: error))")
        #expect(error?.reason.contains(text) == true, "\(name): \(String(describing: error))")
    }
}
