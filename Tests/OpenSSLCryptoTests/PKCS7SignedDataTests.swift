import Foundation
import Testing
import OpenSSLCrypto

/// The legacy receipts made by Tests/Fixtures/receipts/make-receipts.sh.
enum ReceiptFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/receipts")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func certificate(_ stem: String) throws -> Certificate {
        try #require(try Certificate.load(path: directory.appendingPathComponent("pki/\(stem).pem").path).first)
    }

    /// 2026-05-31T12:00:00Z, the creation date of most fixtures.
    static let created = Date(timeIntervalSince1970: 1_780_228_800)
}

struct PKCS7SignedDataTests {
    @Test func readsContentCertificatesAndSigner() throws {
        let container = try PKCS7SignedData(der: try ReceiptFixtures.bytes("receipt-single.p7"))
        // The content is the DER receipt payload: a SET.
        #expect(container.content.first == 0x31)
        #expect(container.certificates.count == 2)
        #expect(container.signer.subjectSummary.contains("Receipt Signing"))
        #expect(container.signer == (try ReceiptFixtures.certificate("receipt-signer")))
    }

    @Test func verifiesSignatureAndChainAtTheGivenTime() throws {
        let container = try PKCS7SignedData(der: try ReceiptFixtures.bytes("receipt-several.p7"))
        let store = try TrustStore(roots: [try ReceiptFixtures.certificate("receipt-root")])
        let chain = try container.verify(trustStore: store, at: ReceiptFixtures.created)
        #expect(chain.count == 3)
        #expect(chain.first === container.signer)
        #expect(chain.last == (try ReceiptFixtures.certificate("receipt-root")))
    }

    @Test func signerExpiredLaterVerifiesAtCreationButNotToday() throws {
        let container = try PKCS7SignedData(der: try ReceiptFixtures.bytes("receipt-signer-expired-later.p7"))
        let store = try TrustStore(roots: [try ReceiptFixtures.certificate("receipt-root")])
        // Created 2025-03-01; the signer expired 2025-06-01.
        _ = try container.verify(trustStore: store, at: Date(timeIntervalSince1970: 1_740_830_400))
        let error = #expect(throws: PKCS7Error.self) {
            try container.verify(trustStore: store, at: ReceiptFixtures.created)
        }
        #expect(error?.kind == .untrustedChain)
        #expect(error?.chainError?.kind == .expired)
    }

    /// The chain check failing to run is not the receipt's fault: not `.untrustedChain`.
    @Test func aChainCheckThatCannotRunIsAnInternalFailure() throws {
        let container = try PKCS7SignedData(der: try ReceiptFixtures.bytes("receipt-single.p7"))
        let store = try TrustStore(roots: [try ReceiptFixtures.certificate("receipt-root")])
        let error = #expect(throws: PKCS7Error.self) {
            // A time OpenSSL cannot be given: the check stops before building any chain.
            try container.verify(trustStore: store, at: Date(timeIntervalSince1970: 1e300))
        }
        #expect(error?.kind == .internalFailure, "\(String(describing: error))")
        #expect(error?.chainError == nil)
    }

    @Test func tamperedContentFailsTheSignature() throws {
        let container = try PKCS7SignedData(der: try ReceiptFixtures.bytes("receipt-tampered.p7"))
        let store = try TrustStore(roots: [try ReceiptFixtures.certificate("receipt-root")])
        let error = #expect(throws: PKCS7Error.self) {
            try container.verify(trustStore: store, at: ReceiptFixtures.created)
        }
        #expect(error?.kind == .invalidSignature)
        // OpenSSL's own words come through.
        #expect(error?.message.contains("signature failure") == true)
    }

    @Test func otherRootIsUntrusted() throws {
        let container = try PKCS7SignedData(der: try ReceiptFixtures.bytes("receipt-other-root.p7"))
        try container.verifySignature()
        let store = try TrustStore(roots: [try ReceiptFixtures.certificate("receipt-root")])
        let error = #expect(throws: PKCS7Error.self) {
            try container.verify(trustStore: store, at: ReceiptFixtures.created)
        }
        #expect(error?.kind == .untrustedChain)
        #expect(error?.chainError?.kind == .untrusted)
    }

    @Test func xcodeReceiptHasAValidSignatureButNoAppleChain() throws {
        let container = try PKCS7SignedData(der: try ReceiptFixtures.bytes("receipt-xcode.p7"))
        try container.verifySignature()
        let store = try TrustStore(roots: [try ReceiptFixtures.certificate("receipt-root")])
        #expect(throws: PKCS7Error.self) { try container.verify(trustStore: store, at: ReceiptFixtures.created) }
    }

    @Test(arguments: ["empty", "garbage", "a certificate"])
    func garbageIsMalformed(_ name: String) throws {
        let bytes: [UInt8] = switch name {
        case "empty": []
        case "garbage": Array("not a receipt at all".utf8)
        default: try ReceiptFixtures.bytes("pki/receipt-root.pem")
        }
        let error = #expect(throws: PKCS7Error.self) { try PKCS7SignedData(der: bytes) }
        #expect(error?.kind == .malformed, "\(name)")
    }

    @Test func truncatedAndTrailingBytesAreMalformed() throws {
        let truncated = try ReceiptFixtures.bytes("receipt-truncated.p7")
        #expect(throws: PKCS7Error.self) { try PKCS7SignedData(der: truncated) }
        let trailing = try ReceiptFixtures.bytes("receipt-single.p7") + [0]
        let error = #expect(throws: PKCS7Error.self) { try PKCS7SignedData(der: trailing) }
        #expect(error?.message.contains("trailing") == true)
        // Every prefix of a real receipt is refused without a crash.
        let good = try ReceiptFixtures.bytes("receipt-single.p7")
        for length in stride(from: 0, to: good.count, by: 37) {
            #expect(throws: PKCS7Error.self) { try PKCS7SignedData(der: Array(good.prefix(length))) }
        }
    }
}
