import Foundation
import Testing

/// The support functions through their built binaries, one SQLite store shared by the
/// processes as in a deployment: purchases come in through ingest-transaction, answers are
/// read back with get-entitlements.
@Suite("Support functions through the binaries")
struct SupportBinaryTests {
    static let now: Int64 = 1_780_272_000_000
    static let environment = [
        "APPSTORE_ROOT_CERTS": "Tests/Fixtures/pki/root.pem",
        "APPSTORE_BUNDLE_ID": "com.example.storekeeper",
        "APPSTORE_APP_APPLE_ID": "1234567890",
        "APPSTORE_ONLINE_CHECKS": "off",
        "STOREKEEPER_NOW": "1780272000",
    ]

    /// A deployment: one store, every function run against it.
    struct Deployment {
        let store = "sqlite:" + FileManager.default.temporaryDirectory.appendingPathComponent("support-\(UUID().uuidString).db").path
        /// A catalog file in place of the APPSTORE_* app variables.
        var catalog: String?

        func run(_ name: String, _ request: [String: Any], extra: [String: String] = [:]) throws -> (answer: [String: Any], exitCode: Int32) {
            var environment = SupportBinaryTests.environment.merging(extra) { $1 }
            environment["STORE_URL"] = store
            if let catalog {
                environment["STOREKEEPER_CATALOG"] = catalog
                environment["APPSTORE_BUNDLE_ID"] = nil
                environment["APPSTORE_APP_APPLE_ID"] = nil
            }
            let result = try FunctionBinary(name: name).run(stdin: try JSONSerialization.data(withJSONObject: request), environment: environment)
            let answer = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any],
                                      "\(name): \(result.stdoutText) \(result.stderrText)")
            return (answer, result.exitCode)
        }

        /// Signs a monthly subscription with the test PKI and ingests it for `userId`.
        func purchase(_ id: String, userId: String?, productId: String = "com.example.pro.monthly", token: String? = nil,
                      expiresIn: Int64 = 2_592_000_000) throws {
            var payload: [String: Any] = [
                "transactionId": id, "originalTransactionId": id, "bundleId": "com.example.storekeeper",
                "productId": productId, "type": "Auto-Renewable Subscription",
                "purchaseDate": SupportBinaryTests.now, "expiresDate": SupportBinaryTests.now + expiresIn,
                "signedDate": SupportBinaryTests.now, "environment": "Sandbox", "inAppOwnershipType": "PURCHASED",
            ]
            if let token { payload["appAccountToken"] = token }
            let signed = try FunctionBinary(name: "simulate-store").run(
                stdin: try JSONSerialization.data(withJSONObject: ["sign": "transaction", "payload": payload]),
                environment: ["SIMULATE_PKI_DIR": "Tests/Fixtures/pki"])
            let jws = try #require((try JSONSerialization.jsonObject(with: signed.stdout) as? [String: Any])?["signedData"] as? String)
            var request: [String: Any] = ["jwsRepresentation": jws]
            if let userId { request["userId"] = userId }
            let ingested = try run("ingest-transaction", request)
            #expect(ingested.exitCode == 0, "\(ingested.answer)")
        }

        func entitlementIds(_ key: String, _ value: String) throws -> [String] {
            let answer = try run("get-entitlements", [key: value]).answer
            return (answer["entitlements"] as? [[String: Any]] ?? []).compactMap { $0["originalTransactionId"] as? String }
        }
    }

    @Test func aGrantIsGivenThenRevokedOnceWithItsReasons() throws {
        let deployment = Deployment()
        let granted = try deployment.run("grant-entitlement", ["userId": "user-1", "entitlement": "pro", "durationDays": 7,
                                                               "reason": "outage compensation"])
        #expect(granted.exitCode == 0, "\(granted.answer)")
        let grant = try #require(granted.answer["grant"] as? [String: Any])
        #expect(grant["expiresDate"] as? Int64 == Self.now + 7 * 86_400_000)
        #expect(grant["grantedBy"] as? String == "local", "a direct call: whoever can run the binary")
        let grantId = try #require(grant["grantId"] as? String)

        let revoked = try deployment.run("revoke-grant", ["userId": "user-1", "grantId": grantId, "reason": "given to the wrong user"],
                                         extra: ["STOREKEEPER_NOW": "1780275600"])
        #expect(revoked.exitCode == 0, "\(revoked.answer)")
        #expect((revoked.answer["grant"] as? [String: Any])?["revokedAt"] as? Int64 == Self.now + 3_600_000)
        let again = try deployment.run("revoke-grant", ["userId": "user-1", "grantId": grantId, "reason": "again"],
                                       extra: ["STOREKEEPER_NOW": "1780279200"])
        #expect((again.answer["grant"] as? [String: Any])?["revokedAt"] as? Int64 == Self.now + 3_600_000, "the first revocation stands")

        let elsewhere = try deployment.run("revoke-grant", ["userId": "user-2", "grantId": grantId, "reason": "r"])
        #expect(elsewhere.exitCode == 65)
        #expect((elsewhere.answer["error"] as? [String: Any])?["code"] as? String == "grant_not_found")
    }

    @Test func deletingACustomerUnlinksThePurchasesButKeepsTheirFacts() throws {
        let deployment = Deployment()
        try deployment.purchase("3300000001", userId: "user-del", token: "0c9b8a7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d")
        try deployment.purchase("3300000002", userId: "user-del")
        #expect(try deployment.entitlementIds("userId", "user-del") == ["3300000001", "3300000002"])

        let deleted = try deployment.run("delete-customer", ["userId": "user-del", "reason": "asked to be forgotten"])
        #expect(deleted.exitCode == 0, "\(deleted.answer)")
        #expect(deleted.answer["subscriptionsUnlinked"] as? Int == 2)
        #expect(deleted.answer["appAccountTokensReleased"] as? Int == 1)
        #expect(try deployment.entitlementIds("userId", "user-del").isEmpty)
        #expect(try deployment.entitlementIds("appAccountToken", "0c9b8a7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d") == ["3300000001"])
        let byToken = try deployment.run("get-entitlements", ["appAccountToken": "0c9b8a7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d"]).answer
        #expect(byToken["userId"] == nil || byToken["userId"] is NSNull, "the token is nobody's now: \(byToken)")
        let facts = try deployment.run("get-entitlements", ["originalTransactionId": "3300000002"]).answer
        #expect((facts["entitlements"] as? [[String: Any]])?.first?["status"] as? String == "active", "the purchase stays: \(facts)")

        let rerun = try deployment.run("delete-customer", ["userId": "user-del", "reason": "asked again"])
        #expect(rerun.exitCode == 0)
        #expect(rerun.answer["alreadyDeleted"] as? Bool == true)
        let grant = try deployment.run("grant-entitlement", ["userId": "user-del", "entitlement": "pro", "durationDays": 1, "reason": "r"])
        #expect((grant.answer["error"] as? [String: Any])?["code"] as? String == "customer_deleted")
    }

    @Test func mergingMovesTheAnonymousUsersPurchasesAndARerunChangesNothing() throws {
        let deployment = Deployment()
        try deployment.purchase("3400000001", userId: "anon-7")
        let merged = try deployment.run("merge-customers", ["from": "anon-7", "into": "user-7", "reason": "signed in"])
        #expect(merged.exitCode == 0, "\(merged.answer)")
        #expect(merged.answer["subscriptionsMoved"] as? Int == 1)
        #expect(try deployment.entitlementIds("userId", "user-7") == ["3400000001"])
        #expect(try deployment.entitlementIds("userId", "anon-7").isEmpty)

        let rerun = try deployment.run("merge-customers", ["from": "anon-7", "into": "user-7", "reason": "signed in"])
        #expect(rerun.exitCode == 0, "\(rerun.answer)")
        #expect(rerun.answer["subscriptionsMoved"] as? Int == 0)
        let elsewhere = try deployment.run("merge-customers", ["from": "anon-7", "into": "user-8"])
        #expect((elsewhere.answer["error"] as? [String: Any])?["code"] as? String == "already_merged")
    }
}

extension SupportBinaryTests {
    /// keep-first, the default: a purchase linked to one user arriving for another stays
    /// with the first.
    @Test func withoutACatalogTheFirstOwnerKeepsAPurchase() throws {
        let deployment = Deployment()
        try deployment.purchase("3500000001", userId: "user-first")
        try deployment.purchase("3500000001", userId: "user-second")
        #expect(try deployment.entitlementIds("userId", "user-first") == ["3500000001"])
        #expect(try deployment.entitlementIds("userId", "user-second").isEmpty)
    }
}

extension SupportBinaryTests {
    /// A catalog whose one app moves a purchase to the user it arrived for last.
    static func catalogFile(transfer: String) throws -> String {
        let catalog: [String: Any] = [
            "apps": [["bundleId": "com.example.storekeeper", "appAppleId": 1_234_567_890, "environments": ["Sandbox"],
                      "transfer": transfer]],
            "entitlements": ["pro": ["description": "paid features"]],
            "products": ["com.example.pro.monthly": ["entitlements": ["pro"]]],
        ]
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: catalog).write(to: url)
        return url.path
    }

    @Test(arguments: ["keep-first", "move-to-latest"])
    func aPurchaseArrivingForASecondUserFollowsTheAppsPolicy(_ policy: String) throws {
        let deployment = Deployment(catalog: try Self.catalogFile(transfer: policy))
        try deployment.purchase("3600000001", userId: "user-first")
        try deployment.purchase("3600000001", userId: "user-second")
        let moved = policy == "move-to-latest"
        #expect(try deployment.entitlementIds("userId", "user-first") == (moved ? [] : ["3600000001"]))
        #expect(try deployment.entitlementIds("userId", "user-second") == (moved ? ["3600000001"] : []))
    }
}

extension SupportBinaryTests {
    /// A grant overlapping a purchase that gives the same entitlement: the one that ends later
    /// decides; revoked, the purchase decides again; both operations are in the timeline.
    @Test func aGrantOverlappingAPurchaseDecidesWhileItLastsLonger() throws {
        let deployment = Deployment(catalog: try Self.catalogFile(transfer: "keep-first"))
        try deployment.purchase("3700000001", userId: "user-g")
        func pro() throws -> [String: Any] {
            let answer = try deployment.run("get-customer", ["userId": "user-g"])
            #expect(answer.exitCode == 0, "\(answer.answer)")
            let customer = try #require(answer.answer["customer"] as? [String: Any])
            return try #require((customer["entitlements"] as? [String: Any])?["pro"] as? [String: Any], "\(customer)")
        }
        #expect(try pro()["grantedBy"] as? String == "purchase")

        let granted = try deployment.run("grant-entitlement", ["userId": "user-g", "entitlement": "pro", "durationDays": 60,
                                                               "reason": "beta tester"])
        #expect(granted.exitCode == 0, "\(granted.answer)")
        let grantId = try #require((granted.answer["grant"] as? [String: Any])?["grantId"] as? String)
        let withGrant = try pro()
        #expect(withGrant["active"] as? Bool == true)
        #expect(withGrant["grantedBy"] as? String == "grant")
        #expect(withGrant["expiresDate"] as? Int64 == Self.now + 60 * 86_400_000)

        let revoked = try deployment.run("revoke-grant", ["userId": "user-g", "grantId": grantId, "reason": "beta over"])
        #expect(revoked.exitCode == 0, "\(revoked.answer)")
        let afterRevoke = try pro()
        #expect(afterRevoke["grantedBy"] as? String == "purchase")
        #expect(afterRevoke["expiresDate"] as? Int64 == Self.now + 2_592_000_000)

        let customer = try #require(try deployment.run("get-customer", ["userId": "user-g"]).answer["customer"] as? [String: Any])
        let support = (customer["history"] as? [[String: Any]] ?? []).filter { $0["source"] as? String == "support" }
        #expect(support.map { $0["type"] as? String } == ["GRANT_ADDED", "GRANT_REVOKED"], "\(customer["history"] ?? [])")
        #expect(support.map { $0["reason"] as? String } == ["beta tester", "beta over"])
        #expect(support.allSatisfy { $0["actor"] as? String != nil })
    }
}
