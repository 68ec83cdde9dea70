import Foundation
import Testing
import TestSupport

/// sign-offer's tests' deployment: the test PKI's subscription offer key, a store, a catalog
/// when a test gives one, and the checks made on what comes out with tools Storekeeper does
/// not share (the openssl command line; Apple's Python library through AppleOfferLibrary).
struct OfferWorld {
    static let root = FunctionBinary.repositoryRoot
    static let offerKey = root.appendingPathComponent("Tests/Fixtures/pki/subscription-offer-key.p8").path
    static let offerPublicKey = root.appendingPathComponent("Tests/Fixtures/pki/subscription-offer-key.pub.pem").path
    static let apiKey = root.appendingPathComponent("Tests/Fixtures/pki/appstore-api-key.p8").path
    static let apiPublicKey = root.appendingPathComponent("Tests/Fixtures/pki/appstore-api-key.pub.pem").path
    static let bundleId = "com.example.storekeeper"
    static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"
    static let offerKeyId = "OFFERKEY01"

    static let keys = [
        "APPSTORE_OFFER_KEY_ID": offerKeyId, "APPSTORE_OFFER_PRIVATE_KEY": offerKey, "APPSTORE_ISSUER_ID": issuerId,
    ]
    static let app = [
        "APPSTORE_BUNDLE_ID": bundleId, "APPSTORE_APP_APPLE_ID": "1234567890", "APPSTORE_ROOT_CERTS": "Tests/Fixtures/pki/root.pem",
        "APPSTORE_ONLINE_CHECKS": "off",
    ]

    let store = "sqlite:" + FileManager.default.temporaryDirectory.appendingPathComponent("offers-\(UUID().uuidString).db").path
    var catalog: String?

    struct Answer {
        let body: [String: Any]
        let exitCode: Int32
        let stderr: String
        var signature: String { body["signature"] as? String ?? "" }
        var errorCode: String? { (body["error"] as? [String: Any])?["code"] as? String }
    }

    /// Runs `name` with the app, the offer key (`keys`) and this world's store and catalog.
    func run(_ request: [String: Any], function name: String = "sign-offer", keys: [String: String] = OfferWorld.keys,
             extra: [String: String] = [:]) throws -> Answer {
        var environment = Self.app.merging(keys) { $1 }.merging(extra) { $1 }
        environment["STORE_URL"] = store
        if let catalog {
            environment["STOREKEEPER_CATALOG"] = catalog
            environment["APPSTORE_BUNDLE_ID"] = nil
            environment["APPSTORE_APP_APPLE_ID"] = nil
        }
        let result = try FunctionBinary(name: name).run(stdin: try JSONSerialization.data(withJSONObject: request), environment: environment)
        let body = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any],
                                "\(name): \(result.stdoutText) \(result.stderrText)")
        return Answer(body: body, exitCode: result.exitCode, stderr: result.stderrText)
    }

    /// Signs a transaction (and its renewal info) with the test PKI and ingests it for `userId`.
    func purchase(_ id: String, userId: String, productId: String, group: String? = nil,
                  winBackOffers: [String]? = nil) throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var transaction: [String: Any] = [
            "transactionId": id, "originalTransactionId": id, "bundleId": Self.bundleId, "productId": productId,
            "type": "Auto-Renewable Subscription", "purchaseDate": now - 86_400_000, "expiresDate": now - 3_600_000,
            "signedDate": now, "environment": "Sandbox", "inAppOwnershipType": "PURCHASED",
        ]
        if let group { transaction["subscriptionGroupIdentifier"] = group }
        var request: [String: Any] = ["signedTransaction": try Self.simulate("transaction", transaction), "userId": userId]
        if let winBackOffers {
            let renewal: [String: Any] = [
                "originalTransactionId": id, "productId": productId, "autoRenewProductId": productId, "autoRenewStatus": 0,
                "environment": "Sandbox", "signedDate": now, "eligibleWinBackOfferIds": winBackOffers,
            ]
            request["signedRenewalInfo"] = try Self.simulate("renewalInfo", renewal)
        }
        let ingested = try run(request, function: "ingest-transaction")
        #expect(ingested.exitCode == 0, "\(ingested.body) \(ingested.stderr)")
    }

    static func simulate(_ kind: String, _ payload: [String: Any]) throws -> String {
        let signed = try FunctionBinary(name: "simulate-store").run(
            stdin: try JSONSerialization.data(withJSONObject: ["sign": kind, "payload": payload]),
            environment: ["SIMULATE_PKI_DIR": "Tests/Fixtures/pki"])
        return try #require((try JSONSerialization.jsonObject(with: signed.stdout) as? [String: Any])?["signedData"] as? String,
                            "\(signed.stderrText)")
    }

    /// A catalog file with `products` for the one test app.
    static func catalogFile(products: [String: Any], entitlements: [String]) throws -> String {
        let document: [String: Any] = [
            "apps": [["bundleId": bundleId, "appAppleId": 1234567890]],
            "entitlements": Dictionary(uniqueKeysWithValues: entitlements.map { ($0, [String: Any]()) }),
            "products": products,
        ]
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("offers-catalog-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: document).write(to: url)
        return url.path
    }
}

/// A compact JWS taken apart, and checked with the openssl command line.
struct DecodedJWS {
    let header: [String: Any]
    let claims: [String: Any]
    let signingInput: Data
    /// r || s, as JWS carries it.
    let signature: Data

    init(_ jws: String) throws {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3, "not a compact JWS: \(jws)")
        header = try #require(try JSONSerialization.jsonObject(with: try Self.base64URL(parts[0])) as? [String: Any])
        claims = try #require(try JSONSerialization.jsonObject(with: try Self.base64URL(parts[1])) as? [String: Any])
        signingInput = Data((parts[0] + "." + parts[1]).utf8)
        signature = try Self.base64URL(parts[2])
    }

    static func base64URL(_ text: String) throws -> Data {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return try #require(Data(base64Encoded: standard), "not base64url: \(text)")
    }

    /// Whether `openssl dgst -sha256 -verify` accepts the signature under `publicKey`.
    func verifies(with publicKey: String) throws -> Bool {
        try #require(signature.count == 64, "an ES256 signature is 64 bytes")
        return try OpenSSLVerify.verifies(message: signingInput, der: Self.der(raw: signature), publicKey: publicKey)
    }

    /// r || s as the DER SEQUENCE of two INTEGERs openssl reads.
    static func der(raw: Data) -> Data {
        func integer(_ bytes: Data) -> Data {
            var value = Data(bytes.drop { $0 == 0 })
            if value.isEmpty || value[value.startIndex] & 0x80 != 0 { value.insert(0, at: 0) }
            return Data([0x02, UInt8(value.count)]) + value
        }
        let body = integer(raw.prefix(32)) + integer(raw.suffix(32))
        return Data([0x30, UInt8(body.count)]) + body
    }
}

enum OpenSSLVerify {
    static func verifies(message: Data, der: Data, publicKey: String) throws -> Bool {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("offer-verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try message.write(to: folder.appendingPathComponent("message"))
        try der.write(to: folder.appendingPathComponent("signature.der"))
        return (try? OpenSSLCLI.run(["dgst", "-sha256", "-verify", publicKey, "-signature", "signature.der", "message"],
                                    in: folder)) != nil
    }
}
