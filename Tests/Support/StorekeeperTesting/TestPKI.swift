import Foundation
import OpenSSLCrypto
import StorekeeperCore

/// The test PKI: the committed one (Tests/Fixtures/pki, made by make-pki.sh, valid at
/// `fixedTime`) with helpers to sign App Store-shaped JWS with any of its chains, and a small
/// one the `openssl` CLI makes at run time (`generated`, in TestPKI+Generated.swift) for the
/// certificate shapes and validity windows relative to now that OpenSSLCrypto's tests need.
public enum TestPKI {
    public static let directory: String = {
        // Tests/Support/StorekeeperTesting/TestPKI.swift → Tests/Fixtures/pki
        let here = URL(fileURLWithPath: #filePath)
        return here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pki").path
    }()

    /// 2026-06-01T00:00:00Z: inside every good certificate's validity, after the expired leaf's.
    public static let fixedTime = Date(timeIntervalSince1970: 1_780_272_000)
    public static let fixedTimeMilliseconds: Int64 = 1_780_272_000_000

    /// Apple's marker extensions, which both PKIs carry where Apple's chain does.
    public static let wwdrIntermediateOID = "1.2.840.113635.100.6.2.1"
    public static let receiptSignerOID = "1.2.840.113635.100.6.11.1"

    public static let bundleId = "com.example.storekeeper"
    public static let appAppleId: Int64 = 1_234_567_890

    public static func certificate(_ stem: String) throws -> Certificate {
        guard let certificate = try Certificate.load(path: "\(directory)/\(stem).pem").first else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return certificate
    }

    public static func key(_ stem: String) throws -> ECPrivateKey {
        try ECPrivateKey(pem: String(contentsOfFile: "\(directory)/\(stem).key", encoding: .utf8))
    }

    public static func x5c(_ stems: [String]) throws -> [String] {
        try stems.map { Data(try certificate($0).der).base64EncodedString() }
    }

    /// Signs `payload` as Apple would, with the leaf key `keyStem` and the chain `chain`.
    public static func sign(_ payload: [String: Any], key keyStem: String = "leaf",
                     chain: [String] = ["leaf", "intermediate", "root"], alg: String = "ES256") throws -> String {
        let json = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
        let signer = JWSSigner(key: try key(keyStem), header: JOSEHeader(alg: alg, x5c: try x5c(chain)))
        return try signer.sign(payload: Array(json))
    }

    /// Signs a model (a transaction, renewal info) as Apple would: its JSON, in Apple's field names.
    public static func sign(encoding model: some Encodable, key keyStem: String = "leaf",
                            chain: [String] = ["leaf", "intermediate", "root"]) throws -> String {
        let signer = JWSSigner(key: try key(keyStem), header: JOSEHeader(alg: "ES256", x5c: try x5c(chain)))
        return try signer.sign(payload: Array(JSONEncoder().encode(model)))
    }

    public static func verifier(environments: Set<String> = ["Sandbox", "Production"],
                         roots: [String] = ["root"]) throws -> SignedDataVerifier {
        SignedDataVerifier(configuration: .init(
            trustAnchors: TrustAnchors(try roots.map(certificate)),
            bundleId: bundleId,
            appAppleId: appAppleId,
            acceptedEnvironments: environments
        ))
    }

    public static func transaction(environment: String = "Sandbox", bundleId: String = bundleId,
                            signedDate: Int64 = fixedTimeMilliseconds) -> [String: Any] {
        [
            "transactionId": "2000000001", "originalTransactionId": "2000000001",
            "bundleId": bundleId, "productId": "com.example.pro.monthly",
            "type": "Auto-Renewable Subscription", "purchaseDate": signedDate - 1000,
            "expiresDate": signedDate + 2_592_000_000, "environment": environment,
            "inAppOwnershipType": "PURCHASED", "signedDate": signedDate,
        ]
    }

    public static func renewalInfo(environment: String = "Sandbox", signedDate: Int64 = fixedTimeMilliseconds) -> [String: Any] {
        [
            "originalTransactionId": "2000000001", "autoRenewProductId": "com.example.pro.monthly",
            "productId": "com.example.pro.monthly", "autoRenewStatus": 1,
            "environment": environment, "signedDate": signedDate,
        ]
    }

    public static func notification(environment: String = "Sandbox", bundleId: String = bundleId,
                             appAppleId: Int64? = appAppleId, transactionJWS: String? = nil,
                             renewalJWS: String? = nil) throws -> [String: Any] {
        var data: [String: Any] = ["bundleId": bundleId, "environment": environment]
        if let appAppleId { data["appAppleId"] = appAppleId }
        data["signedTransactionInfo"] = try transactionJWS ?? sign(transaction(environment: environment, bundleId: bundleId))
        data["signedRenewalInfo"] = try renewalJWS ?? sign(renewalInfo(environment: environment))
        return [
            "notificationType": "SUBSCRIBED", "subtype": "INITIAL_BUY",
            "notificationUUID": "8c9f1d2e-0000-4000-8000-000000000001", "version": "2.0",
            "signedDate": fixedTimeMilliseconds, "data": data,
        ]
    }
}
