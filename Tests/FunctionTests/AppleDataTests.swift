import Foundation
import OpenSSLCrypto
import StorekeeperCore
import Testing

/// Apple data that used to be refused or lost, and forgeries that used to be taken, through
/// the built binaries: Xcode's own signed data in verify-signed-data, `appData` notifications
/// and types Apple adds later through the webhook and the worker, nested JWS of the wrong
/// kind, unsigned data on the public webhook, payloads two JSON readers could read differently,
/// and the soft online-check warning on the webhook.
@Suite("Apple's data and forgeries through the binaries")
struct AppleDataTests {
    static let xcodeFixtures = FunctionBinary.repositoryRoot.appendingPathComponent("Tests/Fixtures/xcode")
    static let xcodeBundleId = "com.example.naturelab.backyardbirds.example"

    struct Answer {
        var result: FunctionBinary.Result
        var object: [String: Any]
        var exitCode: Int32 { result.exitCode }
        var errorCode: String? { (object["error"] as? [String: Any])?["code"] as? String }
        var errorMessage: String { (object["error"] as? [String: Any])?["message"] as? String ?? "" }
    }

    static func run(_ name: String, _ request: [String: Any], environment: [String: String]) throws -> Answer {
        let result = try FunctionBinary(name: name).run(stdin: JSONSerialization.data(withJSONObject: request), environment: environment)
        let object = (try? JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]) ?? [:]
        return Answer(result: result, object: object)
    }

    /// One JWS signed by simulate-store with the fixture PKI.
    static func sign(_ kind: String, _ payload: [String: Any]) throws -> String {
        let answer = try run("simulate-store", ["sign": kind, "payload": payload], environment: ["SIMULATE_PKI_DIR": E2E.pki.path])
        return try #require(answer.object["signedData"] as? String, "\(answer.result.stderrText)")
    }

    /// Signs raw payload bytes with the fixture leaf (for payloads no JSON writer makes).
    static func signRaw(_ payload: String) throws -> String {
        let key = try ECPrivateKey(pem: String(contentsOf: E2E.pki.appendingPathComponent("leaf.key"), encoding: .utf8))
        let x5c = try ["leaf", "intermediate", "root"].map { stem in
            Data(try #require(try Certificate.load(path: E2E.pki.appendingPathComponent("\(stem).pem").path).first).der).base64EncodedString()
        }
        return try JWSSigner(key: key, header: JOSEHeader(alg: "ES256", x5c: x5c)).sign(payload: Array(payload.utf8))
    }

    static func forgeSignature(_ jws: String) -> String {
        let parts = jws.split(separator: ".")
        return [String(parts[0]), String(parts[1]), Base64URL.encode([UInt8](repeating: 0, count: 64))].joined(separator: ".")
    }

    static func transaction(_ id: String, environment: String = "Sandbox", signedDate: Int64) -> [String: Any] {
        ["transactionId": id, "originalTransactionId": id, "bundleId": E2E.bundleId, "productId": "com.example.pro.monthly",
         "type": "Auto-Renewable Subscription", "purchaseDate": signedDate - 1000, "originalPurchaseDate": signedDate - 1000,
         "expiresDate": signedDate + 30 * 86_400_000, "environment": environment, "inAppOwnershipType": "PURCHASED",
         "signedDate": signedDate]
    }

    static func renewal(_ id: String, environment: String = "Sandbox", autoRenew: Int, signedDate: Int64) -> [String: Any] {
        ["originalTransactionId": id, "autoRenewProductId": "com.example.pro.monthly", "productId": "com.example.pro.monthly",
         "autoRenewStatus": autoRenew, "environment": environment, "signedDate": signedDate]
    }

    static func notification(_ type: String, uuid: String, environment: String = "Sandbox", signedDate: Int64,
                             transaction: [String: Any]?, renewal: [String: Any]?) -> [String: Any] {
        var data: [String: Any] = ["bundleId": E2E.bundleId, "environment": environment, "appAppleId": E2E.appAppleId]
        if let transaction { data["transactionInfo"] = transaction }
        if let renewal { data["renewalInfo"] = renewal }
        return ["notificationType": type, "notificationUUID": uuid, "signedDate": signedDate, "version": "2.0", "data": data]
    }

    // MARK: StoreKit Testing in Xcode

    static func xcodeEnvironment(_ environments: String) -> [String: String] {
        var environment = E2E.environment(storeURL: "sqlite:" + FileManager.default.temporaryDirectory
            .appendingPathComponent("xcode-\(UUID().uuidString).db").path, adminToken: "unused")
        environment["APPSTORE_BUNDLE_ID"] = xcodeBundleId
        environment["APPSTORE_ENVIRONMENT"] = environments
        return environment
    }

    @Test(arguments: [("transaction", "transaction"), ("renewal-info", "renewalInfo"), ("app-transaction", "appTransaction")])
    func applesXcodeDataIsAcceptedUnsignedOnlyWhenXcodeIsAccepted(_ file: String, _ type: String) throws {
        let jws = try String(contentsOf: Self.xcodeFixtures.appendingPathComponent("xcode-signed-\(file)"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let accepted = try Self.run("verify-signed-data", ["signedData": jws], environment: Self.xcodeEnvironment("Xcode"))
        #expect(accepted.exitCode == 0, "\(accepted.result.stdoutText) \(accepted.result.stderrText)")
        #expect(accepted.object["valid"] as? Bool == true)
        #expect(accepted.object["type"] as? String == type)
        #expect(accepted.object["environment"] as? String == "Xcode")
        #expect(accepted.object["signatureChecked"] as? Bool == false)
        let payload = try #require(accepted.object["payload"] as? [String: Any])
        #expect(payload["deviceVerificationNonce"] is String)
        // Said at start, before any data: this function takes data Apple does not sign.
        #expect(accepted.result.stderrText.contains("unsigned_environment_accepted"))

        let refused = try Self.run("verify-signed-data", ["signedData": jws], environment: Self.xcodeEnvironment("Production,Sandbox"))
        #expect(refused.exitCode == 65)
        #expect(refused.object["valid"] as? Bool == false)
        #expect(refused.errorCode == "INVALID_JWT_FORMAT")
        #expect(!refused.result.stderrText.contains("unsigned_environment_accepted"))
    }

    @Test func unsignedTestDataIsRefusedByThePublicWebhookWhateverTheConfigurationSays() throws {
        let store = try TestStore(.sqlite)
        var environment = E2E.environment(storeURL: store.url, adminToken: "unused")
        environment["APPSTORE_ENVIRONMENT"] = "Sandbox,Xcode,LocalTesting"
        let now = E2E.nowMilliseconds
        for declared in ["Xcode", "LocalTesting"] {
            let id = declared == "Xcode" ? "7100000001" : "7100000002"
            let signed = try Self.sign("notification", Self.notification(
                "SUBSCRIBED", uuid: UUID().uuidString.lowercased(), environment: declared, signedDate: now,
                transaction: Self.transaction(id, environment: declared, signedDate: now),
                renewal: Self.renewal(id, environment: declared, autoRenew: 1, signedDate: now)))
            // A zero signature and the test PKI's chain: no Apple key signed this.
            let answer = try Self.run("receive-notification", ["signedPayload": Self.forgeSignature(signed)], environment: environment)
            #expect(answer.exitCode == 65, "\(answer.result.stdoutText)")
            #expect(answer.errorCode == "VERIFICATION_FAILURE", "\(answer.result.stdoutText)")
            // And Xcode's own single self-signed certificate is not a chain.
            let entitlements = try Self.run("get-entitlements", ["originalTransactionId": id], environment: environment)
            #expect(entitlements.object["active"] as? Bool != true, "\(entitlements.result.stdoutText)")
        }
        #expect(try store.pendingJobs() == 0)
    }

    // MARK: notifications scoped by appData, types Apple adds later, nested kinds

    @Test func rescindConsentIsStoredWithItsAppTransactionAndProcessedAsInformational() throws {
        let store = try TestStore(.sqlite)
        let environment = E2E.environment(storeURL: store.url, adminToken: "unused")
        let now = E2E.nowMilliseconds
        let uuid = "002e14d5-51f5-4503-b5a8-c3a1af68eb20"
        let signed = try Self.sign("notification", [
            "notificationType": "RESCIND_CONSENT", "notificationUUID": uuid, "signedDate": now, "version": "2.0",
            "appData": [
                "bundleId": E2E.bundleId, "environment": "Sandbox", "appAppleId": E2E.appAppleId,
                "appTransactionInfo": ["receiptType": "Sandbox", "bundleId": E2E.bundleId, "appAppleId": E2E.appAppleId,
                                       "applicationVersion": "7", "receiptCreationDate": now, "originalPurchaseDate": now,
                                       "appTransactionId": "704289572311"] as [String: Any],
            ] as [String: Any],
        ])
        let received = try Self.run("receive-notification", ["signedPayload": signed], environment: environment)
        #expect(received.exitCode == 0, "\(received.result.stdoutText) \(received.result.stderrText)")
        #expect(received.object["status"] as? String == "accepted")

        let stored = try #require(try store.open().get(StoreKeys.notification(uuid)))
        let record = try #require(try JSONSerialization.jsonObject(with: Data(stored.bytes)) as? [String: Any])
        #expect(record["notificationType"] as? String == "RESCIND_CONSENT")
        let appTransaction = try #require(record["appTransactionInfo"] as? [String: Any])
        #expect(appTransaction["applicationVersion"] as? String == "7")

        let worker = try Binaries.process(environment: environment)
        let report = try #require(worker.report, "\(worker)")
        #expect(worker.exitCode == 0)
        #expect(report.ignored == 1 && report.failed == 0 && report.deadLettered == 0 && report.remaining == 0, "\(report)")
        #expect(try store.deadLetters() == [])
    }

    @Test(arguments: ["SOMETHING_APPLE_ADDS_NEXT_YEAR", "MIGRATE", "MIGRATION"])
    func aTypeNobodyKnowsYetIsMergedAndKeepsItsRawName(_ type: String) throws {
        let store = try TestStore(.sqlite)
        let environment = E2E.environment(storeURL: store.url, adminToken: "unused")
        let now = E2E.nowMilliseconds
        let id = "7200000001"
        let subscribed = try Self.sign("notification", Self.notification(
            "SUBSCRIBED", uuid: UUID().uuidString.lowercased(), signedDate: now - 60_000,
            transaction: Self.transaction(id, signedDate: now - 60_000), renewal: Self.renewal(id, autoRenew: 1, signedDate: now - 60_000)))
        // Newer signed facts (auto-renew off) under a type the code does not know.
        let later = try Self.sign("notification", Self.notification(
            type, uuid: UUID().uuidString.lowercased(), signedDate: now,
            transaction: Self.transaction(id, signedDate: now - 60_000), renewal: Self.renewal(id, autoRenew: 0, signedDate: now)))
        let received = try Binaries.receive([subscribed, later], environment: environment)
        #expect(received.answers == ["accepted", "accepted"], "\(received)")
        let worker = try Binaries.process(environment: environment)
        #expect(worker.report?.applied == 2 && worker.report?.ignored == 0, "\(worker)")

        let record = try #require(try store.record(id))
        #expect(record.lastEvent.type == type)
        #expect(record.renewal?.autoRenewStatus == 0)
        let answer = try Self.run("get-entitlements", ["originalTransactionId": id], environment: environment)
        let entitlements = try #require(answer.object["entitlements"] as? [[String: Any]], "\(answer.result.stdoutText)")
        let lastEvent = try #require(entitlements.first?["lastEvent"] as? [String: Any])
        #expect(lastEvent["type"] as? String == type)
    }

    @Test func aNestedJWSOfTheWrongKindIsRefusedByTheWebhook() throws {
        let store = try TestStore(.sqlite)
        let environment = E2E.environment(storeURL: store.url, adminToken: "unused")
        let now = E2E.nowMilliseconds
        // A signed transaction where signedRenewalInfo belongs (simulate-store signs whatever
        // object it is given in renewalInfo).
        let signed = try Self.sign("notification", Self.notification(
            "DID_RENEW", uuid: UUID().uuidString.lowercased(), signedDate: now,
            transaction: Self.transaction("7300000001", signedDate: now), renewal: Self.transaction("7300000001", signedDate: now)))
        let answer = try Self.run("receive-notification", ["signedPayload": signed], environment: environment)
        #expect(answer.exitCode == 65)
        #expect(answer.errorCode == "INVALID_JWT_FORMAT")
        #expect(answer.errorMessage.contains("signedRenewalInfo"), "\(answer.errorMessage)")

        // A nested transaction of another environment: refused, naming the nested one.
        var both = environment
        both["APPSTORE_ENVIRONMENT"] = "Sandbox,Production"
        let mixed = try Self.sign("notification", Self.notification(
            "DID_RENEW", uuid: UUID().uuidString.lowercased(), environment: "Sandbox", signedDate: now,
            transaction: Self.transaction("7300000002", environment: "Production", signedDate: now), renewal: nil))
        let refused = try Self.run("receive-notification", ["signedPayload": mixed], environment: both)
        #expect(refused.exitCode == 65)
        #expect(refused.errorCode == "INVALID_ENVIRONMENT")
        #expect(refused.errorMessage.contains("signedTransactionInfo declares environment Production"), "\(refused.errorMessage)")
        #expect(try store.pendingJobs() == 0)
    }

    // MARK: payloads two readers could read differently

    @Test func verifySignedDataRefusesDuplicateKeysAndAnswersTheParsedValue() throws {
        let environment = E2E.environment(storeURL: "sqlite:" + FileManager.default.temporaryDirectory
            .appendingPathComponent("strict-\(UUID().uuidString).db").path, adminToken: "unused")
        let now = E2E.nowMilliseconds
        let duplicate = try Self.signRaw(#"{"transactionId":"1","originalTransactionId":"1","bundleId":"\#(E2E.bundleId)","environment":"Sandbox","signedDate":\#(now),"productId":"basic","productId":"lifetime"}"#)
        let refused = try Self.run("verify-signed-data", ["signedData": duplicate], environment: environment)
        #expect(refused.exitCode == 65)
        #expect(refused.errorCode == "INVALID_JWT_FORMAT")

        let bom = try Self.signRaw("\u{FEFF}" + #"{"transactionId":"1","originalTransactionId":"1","bundleId":"\#(E2E.bundleId)","environment":"Sandbox","signedDate":\#(now)}"#)
        #expect(try Self.run("verify-signed-data", ["signedData": bom], environment: environment).errorCode == "INVALID_JWT_FORMAT")

        let rich = try Self.signRaw(#"{"transactionId":"1", "originalTransactionId":"1", "bundleId":"\#(E2E.bundleId)", "environment":"Sandbox", "signedDate":\#(now), "taxRate":"0.15", "fraction":1697679936056.485, "big":9007199254740993, "future":{"field":[true,null,"x"]}}"#)
        let accepted = try Self.run("verify-signed-data", ["signedData": rich], environment: environment)
        #expect(accepted.exitCode == 0, "\(accepted.result.stdoutText)")
        // The answer is the signed value re-encoded: compare the text, since a JSON reader
        // here would round the numbers.
        #expect(accepted.result.stdoutText.contains(#""taxRate":"0.15","fraction":1697679936056.485,"big":9007199254740993,"future":{"field":[true,null,"x"]}"#),
                "\(accepted.result.stdoutText)")
    }

    // MARK: the soft online-check policy on the webhook

    @Test func anAcceptedButUncheckedNotificationIsAWarningOnTheWebhookToo() throws {
        // No responder may run meanwhile: the OCSP suite's lock keeps its responders off the ports.
        let lock = open("/tmp/storekeeper-ocsp-ports.lock", O_CREAT | O_RDWR, 0o644)
        _ = flock(lock, LOCK_EX)
        defer { flock(lock, LOCK_UN); close(lock) }
        let store = try TestStore(.sqlite)
        var environment = E2E.environment(storeURL: store.url, adminToken: "unused")
        environment["APPSTORE_ONLINE_CHECKS"] = "soft"
        let now = E2E.nowMilliseconds
        let signed = try Self.sign("notification", Self.notification(
            "SUBSCRIBED", uuid: UUID().uuidString.lowercased(), signedDate: now,
            transaction: Self.transaction("7400000001", signedDate: now), renewal: nil))
        let answer = try Self.run("receive-notification", ["signedPayload": signed], environment: environment)
        #expect(answer.exitCode == 0, "\(answer.result.stdoutText) \(answer.result.stderrText)")
        #expect(answer.object["status"] as? String == "accepted")
        let warnings = answer.result.stderrText.split(separator: "\n").filter { $0.contains("\"warning\"") }
        #expect(warnings.contains { $0.contains("accepted under the soft policy") }, "\(answer.result.stderrText)")
    }
}
