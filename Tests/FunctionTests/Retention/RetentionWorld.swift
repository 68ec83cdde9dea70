import Foundation
import Testing
import TestSupport

/// retention-message's tests' deployment: the fixture catalog (Tests/Fixtures/retention), a
/// store of its own, the test PKI's subscription offer key, and Apple's realtime requests
/// signed by the test PKI through simulate-store.
struct RetentionWorld {
    static let catalog = FunctionBinary.repositoryRoot.appendingPathComponent("Tests/Fixtures/retention/catalog.json").path
    static let day: Int64 = 86_400_000
    static let defaultMessage = "0a6f3d52-7c1e-4b8a-9e2d-000000000000"
    static let originalTransactionId = "2000000777"

    var store = "sqlite:" + FileManager.default.temporaryDirectory.appendingPathComponent("retention-\(UUID().uuidString).db").path
    var keys = OfferWorld.keys
    var catalog = RetentionWorld.catalog

    var environment: [String: String] {
        var environment = keys.merging([
            "APPSTORE_ROOT_CERTS": "Tests/Fixtures/pki/root.pem", "APPSTORE_ONLINE_CHECKS": "off",
            "STOREKEEPER_CATALOG": catalog, "STORE_URL": store,
        ]) { $1 }
        environment["APPSTORE_BUNDLE_ID"] = nil
        return environment
    }

    struct Answer {
        let body: [String: Any]
        let exitCode: Int32
        let stderr: String
        var errorCode: String? { (body["error"] as? [String: Any])?["code"] as? String }
        /// The one `retention_answered` log line.
        var answered: [String: Any] {
            stderr.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }.first { $0["event"] as? String == "retention_answered" } ?? [:]
        }
    }

    /// The fixture catalog with the app's time budget set to `milliseconds`.
    static func catalog(timeBudgetMilliseconds milliseconds: Int) throws -> String {
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: catalog))) as? [String: Any])
        var apps = try #require(document["apps"] as? [[String: Any]])
        var retention = try #require(apps[0]["retention"] as? [String: Any])
        retention["timeBudgetMilliseconds"] = milliseconds
        apps[0]["retention"] = retention
        document["apps"] = apps
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("retention-catalog-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: document).write(to: url)
        return url.path
    }

    /// Apple's realtime request for the subscription, signed now.
    static func request(product: String, locale: String = "en-US", appAppleId: Int64 = 1_234_567_890,
                        originalTransactionId: String = originalTransactionId) throws -> String {
        try OfferWorld.simulate("realtimeRequest", [
            "originalTransactionId": originalTransactionId, "appAppleId": appAppleId, "productId": product, "userLocale": locale,
            "requestIdentifier": UUID().uuidString.lowercased(), "environment": "Sandbox",
            "signedDate": Int64(Date().timeIntervalSince1970 * 1000),
        ])
    }

    func answer(_ signedPayload: String) throws -> Answer {
        let result = try FunctionBinary(name: "retention-message").run(
            stdin: try JSONSerialization.data(withJSONObject: ["signedPayload": signedPayload]), environment: environment)
        let body = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any],
                                "\(result.stdoutText) \(result.stderrText)")
        return Answer(body: body, exitCode: result.exitCode, stderr: result.stderrText)
    }

    /// A subscription to `product` begun `daysAgo` days ago, as ingest-transaction stores it
    /// (a renewal this month, the original purchase then), optionally with an offer redeemed.
    func subscribe(_ product: String, daysAgo: Int64, offerType: Int? = nil) throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var transaction: [String: Any] = [
            "transactionId": "2000000999", "originalTransactionId": Self.originalTransactionId, "bundleId": OfferWorld.bundleId,
            "productId": product, "subscriptionGroupIdentifier": "21000001", "type": "Auto-Renewable Subscription",
            "purchaseDate": now - Self.day, "originalPurchaseDate": now - daysAgo * Self.day, "expiresDate": now + 29 * Self.day,
            "signedDate": now, "environment": "Sandbox", "inAppOwnershipType": "PURCHASED",
        ]
        if let offerType { transaction["offerType"] = offerType }
        let request: [String: Any] = ["signedTransaction": try OfferWorld.simulate("transaction", transaction), "userId": "u-retention"]
        let result = try FunctionBinary(name: "ingest-transaction").run(
            stdin: try JSONSerialization.data(withJSONObject: request), environment: environment)
        #expect(result.exitCode == 0, "\(result.stdoutText) \(result.stderrText)")
    }
}
