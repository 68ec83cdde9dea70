import Foundation
import OpenSSLCrypto
import StorekeeperCore

/// The legacy receipts made by Tests/Fixtures/receipts/make-receipts.sh.
enum ReceiptFixtures {
    // Tests/StorekeeperCoreTests/AppStoreReceipts/ReceiptFixtures.swift → Tests/Fixtures/receipts
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/receipts")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// The payload of a fixture, taken out of its container.
    static func payload(_ name: String) throws -> [UInt8] {
        try PKCS7SignedData(der: try bytes(name)).content
    }

    static func root(_ stem: String = "receipt-root") throws -> Certificate {
        guard let certificate = try Certificate.load(path: directory.appendingPathComponent("pki/\(stem).pem").path).first else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return certificate
    }

    static func verifier(environments: Set<Environment> = [.production, .sandbox], bundleId: String = "com.example.storekeeper") throws -> ReceiptVerifier {
        let root = try root()
        return ReceiptVerifier(configuration: .init(
            trustAnchors: TrustAnchors([root]), bundleId: bundleId, acceptedEnvironments: environments))
    }

    static func date(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text)!
    }
}
