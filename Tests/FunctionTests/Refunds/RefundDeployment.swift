import Foundation
import Testing
import TestSupport

/// A deployment for refund requests: one SQLite store, a catalog with refund policies, the
/// fake App Store as Apple, and the built binaries run against them as cron and the backend would.
struct RefundDeployment {
    static let asked: Int64 = 1_780_272_000_000
    static let token = "6f1b8c2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b"
    static let scenario = FakeAppStore.repositoryRoot.appendingPathComponent("Tests/Support/fakes/scenarios/refunds.json").path
    static let catalogText = """
        {"apps": [{"bundleId": "com.example.storekeeper", "appAppleId": 1234567890, "environments": ["Sandbox"]}],
         "entitlements": {"pro": {}},
         "products": {"com.example.pro.monthly": {"type": "AutoRenewable", "entitlements": ["pro"],
                        "refundPolicy": {"refundPreference": "GRANT_PRORATED"}},
                      "com.example.coins100": {"type": "Consumable", "refundPolicy": {"sampleContentProvided": true,
                        "rules": [{"afterDaysOfUse": 2, "refundPreference": "DECLINE"}]}}}}
        """

    let folder: URL
    let fake: FakeAppStore
    var store: String { "sqlite:" + folder.appendingPathComponent("store.db").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("refunds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.catalogText.utf8).write(to: folder.appendingPathComponent("catalog.json"))
        fake = try FakeAppStore.start(scenario: Self.scenario)
    }

    /// What every function is given; `now` pins the clock (seconds), `credentials` the worker's API key.
    func environment(now: Int64, credentials: Bool = true) -> [String: String] {
        var environment = [
            "APPSTORE_ROOT_CERTS": "Tests/Fixtures/pki/root.pem", "APPSTORE_ONLINE_CHECKS": "off",
            "STOREKEEPER_CATALOG": folder.appendingPathComponent("catalog.json").path,
            "STOREKEEPER_NOW": String(now), "STORE_URL": store,
        ]
        if credentials {
            environment["APPSTORE_KEY_ID"] = FakeAppStore.keyId
            environment["APPSTORE_ISSUER_ID"] = FakeAppStore.issuerId
            environment["APPSTORE_PRIVATE_KEY"] = FakeAppStore.apiKeyPath
            environment["APPSTORE_API_BASE_URL"] = fake.baseURL
        }
        return environment
    }

    @discardableResult
    func run(_ name: String, _ request: [String: Any], now: Int64 = (asked / 1000) + 60,
             credentials: Bool = true) throws -> (answer: [String: Any], exitCode: Int32, stderr: String) {
        let result = try FunctionBinary(name: name).run(stdin: try JSONSerialization.data(withJSONObject: request),
                                                        environment: environment(now: now, credentials: credentials))
        let answer = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any],
                                  "\(name): \(result.stdoutText) \(result.stderrText.suffix(1500))")
        return (answer, result.exitCode, result.stderrText)
    }

    /// Signs a notification with the test PKI and hands it to receive-notification.
    func deliver(_ type: String, uuid: String, transactionId: String, productId: String = "com.example.coins100",
                 productType: String = "Consumable", signedDate: Int64 = asked, reason: String? = "UNINTENDED_PURCHASE",
                 ownership: String = "PURCHASED", purchaseDate: Int64 = asked - 3 * 86_400_000) throws {
        var data: [String: Any] = ["bundleId": "com.example.storekeeper", "environment": "Sandbox", "appAppleId": 1_234_567_890]
        if let reason, type == "CONSUMPTION_REQUEST" { data["consumptionRequestReason"] = reason }
        data["transactionInfo"] = [
            "transactionId": transactionId, "originalTransactionId": transactionId, "bundleId": "com.example.storekeeper",
            "productId": productId, "type": productType, "purchaseDate": purchaseDate, "signedDate": signedDate,
            "environment": "Sandbox", "inAppOwnershipType": ownership, "appAccountToken": Self.token, "quantity": 1,
        ] as [String: Any]
        let payload: [String: Any] = ["notificationType": type, "notificationUUID": uuid, "signedDate": signedDate,
                                      "version": "2.0", "data": data]
        let signed = try FunctionBinary(name: "simulate-store").run(
            stdin: try JSONSerialization.data(withJSONObject: ["sign": "notification", "payload": payload]),
            environment: ["SIMULATE_PKI_DIR": "Tests/Fixtures/pki"])
        let jws = try #require((try JSONSerialization.jsonObject(with: signed.stdout) as? [String: Any])?["signedData"] as? String,
                               "\(signed.stderrText)")
        let received = try run("receive-notification", ["signedPayload": jws], now: signedDate / 1000 + 1)
        #expect(received.answer["status"] as? String == "accepted", "\(received.answer)")
    }

    /// One worker run; its refundRequests report.
    func work(now: Int64, credentials: Bool = true) throws -> [String: Int] {
        let run = try run("process-notifications", ["budgetSeconds": 20], now: now, credentials: credentials)
        #expect(run.exitCode == 0 && run.answer["failed"] as? Int == 0, "an answer never fails a notification: \(run.answer) \(run.stderr.suffix(1500))")
        return (run.answer["refundRequests"] as? [String: Int]) ?? [:]
    }

    /// The PUTs the fake received, in order.
    func consumptionPuts() throws -> [[String: Any]] {
        try fake.requests().filter { ($0["path"] as? String)?.hasPrefix("/inApps/v2/transactions/consumption/") == true }
    }

    func requests(now: Int64 = asked / 1000 + 60) throws -> [String: Any] {
        try run("refund-requests", ["environment": "Sandbox"], now: now).answer
    }
}
