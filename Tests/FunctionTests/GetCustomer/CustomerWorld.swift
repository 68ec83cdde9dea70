import Foundation
import Testing

/// A store of purchases made through the built binaries: transactions and renewal infos
/// signed by `simulate-store` with the test PKI, ingested by `ingest-transaction` for a user,
/// then asked about with `get-customer` and `my-entitlements`.
struct CustomerWorld {
    static let bundleId = "com.example.storekeeper"
    static let day: Int64 = 86_400_000
    /// 2026-06-01T00:00:00Z, as STOREKEEPER_NOW pins it.
    static let now: Int64 = 1_780_272_000_000

    let storePath = FileManager.default.temporaryDirectory.appendingPathComponent("customer-\(UUID().uuidString).db").path
    var extraEnvironment: [String: String] = [:]

    var environment: [String: String] {
        var environment = [
            "APPSTORE_ROOT_CERTS": "Tests/Fixtures/pki/root.pem",
            "APPSTORE_BUNDLE_ID": Self.bundleId,
            "APPSTORE_APP_APPLE_ID": "1234567890",
            "APPSTORE_ONLINE_CHECKS": "off",
            "STOREKEEPER_NOW": "1780272000",
            "STORE_URL": "sqlite:" + storePath,
        ]
        environment.merge(extraEnvironment) { $1 }
        if environment["STOREKEEPER_CATALOG"] != nil {
            // The catalog names the apps; the one-app variables beside it are a mistake.
            environment["APPSTORE_BUNDLE_ID"] = nil
            environment["APPSTORE_APP_APPLE_ID"] = nil
        }
        return environment
    }

    /// A world whose catalog is this JSON (written to a file of its own).
    static func withCatalog(_ catalog: [String: Any]) throws -> CustomerWorld {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: catalog).write(to: path)
        var world = CustomerWorld()
        world.extraEnvironment["STOREKEEPER_CATALOG"] = path.path
        return world
    }

    /// One app selling a monthly, a lifetime and a 30-day pass that all grant `pro`.
    static func proCatalog(sandboxGrants: Bool = true) -> [String: Any] {
        [
            "apps": [["bundleId": bundleId, "appAppleId": 1_234_567_890, "environments": ["Production", "Sandbox"],
                      "sandboxGrants": sandboxGrants]],
            "entitlements": ["pro": ["description": "Paid features"]],
            "products": [
                "com.example.pro.monthly": ["entitlements": ["pro"]],
                "com.example.lifetime": ["type": "NonConsumable", "entitlements": ["pro"]],
                "com.example.pass30": ["type": "NonRenewingSubscription", "durationDays": 30, "entitlements": ["pro"]],
            ],
        ]
    }

    /// An auto-renewable transaction's payload; `fields` override or add (nil removes).
    static func transaction(_ id: String, original: String? = nil, product: String, type: String = "Auto-Renewable Subscription",
                            purchased: Int64 = now - day, expires: Int64? = now + 29 * day,
                            _ fields: [String: Any?] = [:]) -> [String: Any] {
        var payload: [String: Any] = [
            "transactionId": id, "originalTransactionId": original ?? id, "bundleId": bundleId, "productId": product,
            "type": type, "purchaseDate": purchased, "originalPurchaseDate": purchased, "signedDate": purchased,
            "environment": "Sandbox", "inAppOwnershipType": "PURCHASED", "price": 9990, "currency": "EUR",
            "storefront": "FRA", "appTransactionId": "704289572311773000",
        ]
        if let expires { payload["expiresDate"] = expires }
        for (key, value) in fields { payload[key] = value }
        return payload
    }

    static func renewal(original: String, product: String, autoRenew: Bool = true, signed: Int64 = now - day,
                        _ fields: [String: Any] = [:]) -> [String: Any] {
        var payload: [String: Any] = [
            "originalTransactionId": original, "autoRenewProductId": product, "productId": product,
            "autoRenewStatus": autoRenew ? 1 : 0, "environment": "Sandbox", "signedDate": signed, "renewalPrice": 9990,
            "currency": "EUR",
        ]
        for (key, value) in fields { payload[key] = value }
        return payload
    }

    /// Signs each payload (`kind` is simulate-store's "transaction" or "renewalInfo").
    static func sign(_ payloads: [(kind: String, payload: [String: Any])]) throws -> [String] {
        let lines = try payloads.map {
            String(decoding: try JSONSerialization.data(withJSONObject: ["sign": $0.kind, "payload": $0.payload]), as: UTF8.self)
        }
        let signed = try FunctionBinary(name: "simulate-store")
            .run(stdin: Data(lines.joined(separator: "\n").utf8), environment: ["SIMULATE_PKI_DIR": "Tests/Fixtures/pki"])
        #expect(signed.exitCode == 0, "\(signed.stderrText)")
        return try signed.stdoutText.split(separator: "\n").map { line in
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require(answer["signedData"] as? String, "\(answer)")
        }
    }

    /// Ingests each transaction (with its renewal info, when given) for `userId`, in order.
    func ingest(_ purchases: [(transaction: [String: Any], renewal: [String: Any]?)], userId: String?) throws {
        var toSign: [(kind: String, payload: [String: Any])] = []
        for purchase in purchases {
            toSign.append(("transaction", purchase.transaction))
            if let renewal = purchase.renewal { toSign.append(("renewalInfo", renewal)) }
        }
        var signed = try Self.sign(toSign)[...]
        var lines: [String] = []
        for purchase in purchases {
            var request: [String: Any] = ["jwsRepresentation": signed.removeFirst()]
            if purchase.renewal != nil { request["signedRenewalInfo"] = signed.removeFirst() }
            if let userId { request["userId"] = userId }
            lines.append(String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self))
        }
        let result = try FunctionBinary(name: "ingest-transaction")
            .run(stdin: Data(lines.joined(separator: "\n").utf8), environment: environment)
        #expect(result.exitCode == 0, "\(result.stdoutText) \(result.stderrText)")
    }

    /// get-customer's answer: the exit code and the JSON object.
    func customer(_ request: [String: Any]) throws -> (exitCode: Int32, answer: [String: Any]) {
        let result = try FunctionBinary(name: "get-customer")
            .run(stdin: try JSONSerialization.data(withJSONObject: request), environment: environment)
        let answer = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any],
                                  "\(result.stdoutText) \(result.stderrText)")
        return (result.exitCode, answer)
    }

    /// The `customer` object of a successful get-customer.
    func customerObject(_ request: [String: Any]) throws -> [String: Any] {
        let (exitCode, answer) = try customer(request)
        #expect(exitCode == 0, "\(answer)")
        return try #require(answer["customer"] as? [String: Any], "\(answer)")
    }
}

extension Dictionary where Key == String, Value == Any {
    func object(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }
}
