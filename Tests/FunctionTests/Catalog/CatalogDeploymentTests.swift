import Foundation
import StorekeeperCore
import Testing

/// Two apps in one deployment through the built binaries: the webhook takes each app's
/// notifications, the worker keeps their records apart (even under one original transaction
/// id, which sandboxes hand out small and alike), get-entitlements answers per app, and an app
/// whose sandbox purchases do not grant shows them inactive.
@Suite("Catalog: two apps in one deployment")
struct CatalogDeploymentTests {
    static let first = E2E.bundleId
    static let second = "com.example.second"

    static let catalog = """
        {"apps": [{"bundleId": "\(first)", "environments": ["Sandbox"]},
                  {"bundleId": "\(second)", "environments": ["Sandbox"], "sandboxGrants": false}],
         "entitlements": {"pro": {}, "plus": {}},
         "products": {"com.example.pro.monthly": {"bundleId": "\(first)", "entitlements": ["pro"]},
                      "com.example.second.monthly": {"bundleId": "\(second)", "entitlements": ["plus"]}}}
        """

    struct Deployment {
        let store: TestStore
        let folder: URL
        var environment: [String: String]

        init() throws {
            store = try TestStore(.sqlite)
            folder = try E2E.scratchFolder("catalog")
            let path = folder.appendingPathComponent("catalog.json")
            try Data(CatalogDeploymentTests.catalog.utf8).write(to: path)
            environment = E2E.environment(storeURL: store.url, adminToken: "unused")
            for name in ["APPSTORE_BUNDLE_ID", "APPSTORE_APP_APPLE_ID", "APPSTORE_ENVIRONMENT"] { environment[name] = nil }
            environment["STOREKEEPER_CATALOG"] = path.path
        }

        func entitlements(_ request: [String: Any]) throws -> AppleDataTests.Answer {
            try AppleDataTests.run("get-entitlements", request, environment: environment)
        }
    }

    static func subscribed(_ bundleId: String, product: String, id: String, now: Int64) throws -> String {
        var transaction = AppleDataTests.transaction(id, signedDate: now)
        transaction["bundleId"] = bundleId
        transaction["productId"] = product
        var renewal = AppleDataTests.renewal(id, autoRenew: 1, signedDate: now)
        renewal["productId"] = product
        renewal["autoRenewProductId"] = product
        return try AppleDataTests.sign("notification", [
            "notificationType": "SUBSCRIBED", "subtype": "INITIAL_BUY", "notificationUUID": UUID().uuidString.lowercased(),
            "signedDate": now, "version": "2.0",
            "data": ["bundleId": bundleId, "environment": "Sandbox", "transactionInfo": transaction, "renewalInfo": renewal] as [String: Any],
        ])
    }

    @Test func eachAppsRecordsAreKeptApartAndAnsweredPerApp() throws {
        let deployment = try Deployment()
        defer { try? FileManager.default.removeItem(at: deployment.folder) }
        let now = E2E.nowMilliseconds
        let id = "7600000001"
        let signed = [
            try Self.subscribed(Self.first, product: "com.example.pro.monthly", id: id, now: now),
            try Self.subscribed(Self.second, product: "com.example.second.monthly", id: id, now: now),
            try Self.subscribed("com.example.third", product: "com.example.third.monthly", id: id, now: now),
        ]
        let received = try Binaries.receive(signed, environment: deployment.environment)
        #expect(received.answers == ["accepted", "accepted", "INVALID_APP_IDENTIFIER"], "\(received)")
        let worker = try Binaries.process(environment: deployment.environment)
        #expect(worker.report?.applied == 2 && worker.report?.failed == 0, "\(worker)")

        // One original transaction id, two apps: two records, each its app's.
        let both = try deployment.entitlements(["originalTransactionId": id])
        let listed = try #require(both.object["entitlements"] as? [[String: Any]], "\(both.result.stdoutText) \(both.result.stderrText)")
        let byApp = Dictionary(uniqueKeysWithValues: listed.map { ($0["bundleId"] as? String ?? "", $0) })
        #expect(Set(byApp.keys) == [Self.first, Self.second])
        #expect(byApp[Self.first]?["productId"] as? String == "com.example.pro.monthly")
        #expect(byApp[Self.second]?["productId"] as? String == "com.example.second.monthly")
        #expect(listed.allSatisfy { $0["environment"] as? String == "Sandbox" && $0["status"] as? String == "active" })
        // The second app's sandbox purchases do not grant: listed, not active.
        #expect(byApp[Self.first]?["active"] as? Bool == true)
        #expect(byApp[Self.second]?["active"] as? Bool == false)
        #expect(both.object["active"] as? Bool == true)

        let first = try deployment.entitlements(["originalTransactionId": id, "bundleId": Self.first])
        #expect((first.object["entitlements"] as? [[String: Any]])?.map { $0["bundleId"] as? String } == [Self.first])
        #expect(first.object["active"] as? Bool == true)
        let second = try deployment.entitlements(["originalTransactionId": id, "bundleId": Self.second])
        #expect((second.object["entitlements"] as? [[String: Any]])?.count == 1)
        #expect(second.object["active"] as? Bool == false)

        let unknown = try deployment.entitlements(["originalTransactionId": id, "bundleId": "com.example.third"])
        #expect(unknown.exitCode == 65 && unknown.errorCode == "invalid_request", "\(unknown.object)")
    }

    @Test func withSandboxGrantsTheSamePurchaseIsActive() throws {
        var deployment = try Deployment()
        defer { try? FileManager.default.removeItem(at: deployment.folder) }
        // The same deployment, the second app now letting its sandbox purchases grant.
        let granting = deployment.folder.appendingPathComponent("granting.json")
        try Data(Self.catalog.replacingOccurrences(of: #""sandboxGrants": false"#, with: #""sandboxGrants": true"#).utf8).write(to: granting)
        let now = E2E.nowMilliseconds
        let received = try Binaries.receive([try Self.subscribed(Self.second, product: "com.example.second.monthly", id: "7600000002", now: now)],
                                            environment: deployment.environment)
        #expect(received.answers == ["accepted"])
        #expect(try Binaries.process(environment: deployment.environment).report?.applied == 1)

        let refused = try deployment.entitlements(["originalTransactionId": "7600000002"])
        #expect(refused.object["active"] as? Bool == false, "\(refused.object)")
        deployment.environment["STOREKEEPER_CATALOG"] = granting.path
        let granted = try deployment.entitlements(["originalTransactionId": "7600000002"])
        #expect(granted.object["active"] as? Bool == true, "\(granted.object)")
    }

    @Test func anIngestedSandboxPurchaseAnswersAsItsAppGrants() throws {
        let deployment = try Deployment()
        defer { try? FileManager.default.removeItem(at: deployment.folder) }
        let now = E2E.nowMilliseconds
        func ingest(_ bundleId: String, product: String, id: String) throws -> AppleDataTests.Answer {
            var transaction = AppleDataTests.transaction(id, signedDate: now)
            transaction["bundleId"] = bundleId
            transaction["productId"] = product
            return try AppleDataTests.run("ingest-transaction", [
                "jwsRepresentation": try AppleDataTests.sign("transaction", transaction), "userId": "u-catalog",
            ], environment: deployment.environment)
        }
        let second = try ingest(Self.second, product: "com.example.second.monthly", id: "7600000003")
        #expect(second.exitCode == 0, "\(second.result.stdoutText) \(second.result.stderrText)")
        let listed = try #require((second.object["entitlements"] as? [[String: Any]])?.first)
        #expect(listed["bundleId"] as? String == Self.second && listed["environment"] as? String == "Sandbox")
        #expect(listed["status"] as? String == "active" && listed["active"] as? Bool == false)
        #expect(second.object["active"] as? Bool == false)

        // The same user's purchase in the app whose sandbox purchases grant.
        let first = try ingest(Self.first, product: "com.example.pro.monthly", id: "7600000003")
        #expect(first.object["active"] as? Bool == true, "\(first.object)")
        let user = try deployment.entitlements(["userId": "u-catalog"])
        let byApp = (user.object["entitlements"] as? [[String: Any]] ?? []).map { ($0["bundleId"] as? String ?? "", $0["active"] as? Bool) }
        #expect(byApp.sorted { $0.0 < $1.0 }.map(\.0) == [Self.first, Self.second].sorted(), "\(user.object)")
        #expect(Dictionary(uniqueKeysWithValues: byApp) == [Self.first: true, Self.second: false])
    }
}
