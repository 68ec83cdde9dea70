import Foundation
import StorekeeperCore
import Testing
import TestSupport

/// One deployment for the reconcile and recover-notifications tests: a fresh store (SQLite or
/// Redis), the fake App Store started with a scenario built by the test, and the environment
/// every function of the deployment gets. Production only, so a lookup is one request (no
/// sandbox fallback) and the fake's request log counts questions exactly.
final class AppleWorld: @unchecked Sendable {
    static let day: Int64 = 86_400_000
    static let hour: Int64 = 3_600_000
    static let productId = "com.example.pro.monthly"

    let store: TestStore
    let fake: FakeAppStore
    let environment: [String: String]
    private let scenarioFile: URL

    init(_ backend: Backend = .sqlite, customers: [[String: Any]] = [], notifications: [[String: Any]] = [],
         pageSize: Int = 20, extra: [String: String] = [:], bundleId: String = FakeAppStore.bundleId) throws {
        store = try TestStore(backend)
        let scenario: [String: Any] = [
            "keyId": FakeAppStore.keyId, "issuerId": FakeAppStore.issuerId, "bundleId": bundleId,
            "appAppleId": Int(FakeAppStore.appAppleId) ?? 0, "pageSize": pageSize,
            "environments": ["Production": ["customers": customers, "notifications": notifications]],
        ]
        scenarioFile = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: scenario).write(to: scenarioFile)
        fake = try FakeAppStore.start(scenario: scenarioFile.path)
        var environment = [
            "STORE_URL": store.url,
            "APPSTORE_KEY_ID": FakeAppStore.keyId,
            "APPSTORE_ISSUER_ID": FakeAppStore.issuerId,
            "APPSTORE_PRIVATE_KEY": FakeAppStore.apiKeyPath,
            "APPSTORE_BUNDLE_ID": FakeAppStore.bundleId,
            "APPSTORE_API_BASE_URL": fake.baseURL,
            "APPSTORE_ROOT_CERTS": E2E.pki.appendingPathComponent("root.pem").path,
            "APPSTORE_APP_APPLE_ID": FakeAppStore.appAppleId,
            "APPSTORE_ENVIRONMENT": "Production",
            "APPSTORE_ONLINE_CHECKS": "off",
            "PATH": "/usr/local/bin:/usr/bin:/bin",
        ]
        environment.merge(extra) { $1 }
        self.environment = environment
    }

    deinit {
        fake.stop()
        try? FileManager.default.removeItem(at: scenarioFile)
    }

    /// Redis cases run where redis-server is installed (or fail under CI, like the e2e suites).
    static var redisAvailable: Bool {
        RedisTestServer.unavailableReason == nil || ProcessInfo.processInfo.environment["CI"] != nil
    }

    // MARK: the fake's side

    /// One subscription period as the fake keeps it (Apple's JSON field names).
    static func period(_ originalTransactionId: String, transactionId: String? = nil, purchase: Int64, expires: Int64,
                       extra: [String: Any] = [:]) -> [String: Any] {
        let transactionId = transactionId ?? originalTransactionId
        var transaction: [String: Any] = [
            "transactionId": transactionId,
            "originalTransactionId": originalTransactionId,
            "webOrderLineItemId": "9" + transactionId.dropFirst(),
            "productId": productId, "subscriptionGroupIdentifier": "21000001",
            "type": "Auto-Renewable Subscription", "purchaseDate": purchase, "originalPurchaseDate": purchase,
            "expiresDate": expires, "transactionReason": transactionId == originalTransactionId ? "PURCHASE" : "RENEWAL",
            "appAccountToken": appAccountToken(originalTransactionId),
        ]
        transaction.merge(extra) { $1 }
        return transaction
    }

    /// A customer of the fake: the transactions, and the renewal info when it is not the
    /// fake's default (auto-renew on, status from the dates).
    static func customer(_ transactions: [[String: Any]], renewal: [String: Any]? = nil) -> [String: Any] {
        var customer: [String: Any] = ["transactions": transactions]
        if let renewal { customer["renewals"] = [renewal] }
        return customer
    }

    static func appAccountToken(_ originalTransactionId: String) -> String {
        String(format: "0000abcd-1111-4222-8333-%012d", Int(originalTransactionId.suffix(9)) ?? 0)
    }

    /// The ids the fake received lookups for, in order (Get All Subscription Statuses).
    func askedIds() throws -> [String] {
        try fake.requests().compactMap { request in
            guard let path = request["path"] as? String, path.hasPrefix("/inApps/v1/subscriptions/") else { return nil }
            return String(path.dropFirst("/inApps/v1/subscriptions/".count))
        }
    }

    // MARK: the store's side, as Apple's notifications made it

    /// Signs one SUBSCRIBED notification per subscription with the test PKI, delivers them all
    /// to `receive-notification` and runs the worker: the entitlements as the webhook left them.
    func seed(_ subscriptions: [(originalTransactionId: String, purchase: Int64, expires: Int64)]) throws {
        let specs = subscriptions.enumerated().map { index, item in
            let signedDate = item.purchase + 60_000
            let transaction = JWSTransactionDecodedPayload(
                transactionId: item.originalTransactionId, originalTransactionId: item.originalTransactionId,
                bundleId: FakeAppStore.bundleId, productId: Self.productId, subscriptionGroupIdentifier: "21000001",
                purchaseDate: item.purchase, originalPurchaseDate: item.purchase, expiresDate: item.expires, quantity: 1,
                rawType: "Auto-Renewable Subscription", appAccountToken: Self.appAccountToken(item.originalTransactionId),
                rawInAppOwnershipType: "PURCHASED", signedDate: signedDate, rawEnvironment: "Production")
            let renewal = JWSRenewalInfoDecodedPayload(
                originalTransactionId: item.originalTransactionId, autoRenewProductId: Self.productId, productId: Self.productId,
                rawAutoRenewStatus: 1, signedDate: signedDate, rawEnvironment: "Production")
            return NotificationSpec(uuid: NotificationSpec.uuid(0x5eed, index + 1), type: "SUBSCRIBED", subtype: "INITIAL_BUY",
                                    signedDate: signedDate, environment: "Production", transaction: transaction, renewal: renewal)
        }
        let received = try Binaries.receive(try Binaries.sign(specs), environment: environment)
        guard received.exitCode == 0, received.answers.allSatisfy({ $0 == "accepted" }) else {
            throw Binaries.Failure("receive-notification: \(received)")
        }
        let run = try Binaries.process(environment: environment)
        guard run.exitCode == 0, run.report?.applied == specs.count else { throw Binaries.Failure("process-notifications: \(run)") }
    }

    // MARK: the functions

    struct Run: CustomStringConvertible {
        var exitCode: Int32
        var json: [String: Any]
        var stdout: String
        var stderr: String
        var report: [String: Any] { json["report"] as? [String: Any] ?? [:] }
        var description: String { "exit \(exitCode): \(stdout) \(stderr.suffix(1500))" }
    }

    func run(_ function: String, _ request: [String: Any], extra: [String: String] = [:]) throws -> Run {
        var environment = self.environment
        environment.merge(extra) { $1 }
        let result = try FunctionBinary(name: function).run(
            stdin: try JSONSerialization.data(withJSONObject: request), environment: environment)
        let json = (try? JSONSerialization.jsonObject(with: result.stdout)) as? [String: Any] ?? [:]
        return Run(exitCode: result.exitCode, json: json, stdout: result.stdoutText, stderr: result.stderrText)
    }

    func reconcile(_ request: [String: Any] = [:], extra: [String: String] = [:]) throws -> Run {
        try run("reconcile", request, extra: extra)
    }

    /// Starts `reconcile` in the background (to be killed, or run side by side).
    func spawnReconcile(_ request: [String: Any], extra: [String: String] = [:]) throws -> (process: SpawnedProcess, stdout: URL) {
        try spawn("reconcile", request, extra: extra)
    }

    func spawn(_ function: String, _ request: [String: Any], extra: [String: String] = [:]) throws -> (process: SpawnedProcess, stdout: URL) {
        let folder = try E2E.scratchFolder(function)
        let input = folder.appendingPathComponent("stdin")
        let output = folder.appendingPathComponent("stdout")
        try JSONSerialization.data(withJSONObject: request).write(to: input)
        var environment = self.environment
        environment.merge(extra) { $1 }
        let process = try SpawnedProcess.spawn(
            FunctionBinary(name: function).url.path, environment: environment, directory: FunctionBinary.repositoryRoot.path,
            stdin: input.path, stdout: output.path, stderr: folder.appendingPathComponent("stderr").path)
        return (process, output)
    }

    /// The one entitlement of a subscription as `get-entitlements` answers it.
    func entitlement(_ originalTransactionId: String) throws -> [String: Any] {
        let answer = try run("get-entitlements", ["originalTransactionId": originalTransactionId])
        guard answer.exitCode == 0, let list = answer.json["entitlements"] as? [[String: Any]], list.count == 1, let only = list.first else {
            throw Binaries.Failure("get-entitlements \(originalTransactionId): \(answer)")
        }
        return only
    }
}
