import Foundation
import Testing
import TestSupport

/// sign-offer through its built binary: every kind checked by implementations Storekeeper does
/// not share (the openssl command line over Apple's documented message; Apple's Python library
/// for the JWS kinds), the keys, bad input and the eligibility checks.
@Suite("sign-offer through the binary")
struct SignOfferBinaryTests {
    static let separator = "\u{2063}"

    @Test func theOriginalSignatureVerifiesWithOpenSSLOverAppleDocumentedMessage() throws {
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let token = "8E1A2F47-0C55-4C0B-9A3E-5D7B6C1F2E90"
        let answer = try OfferWorld().run(["kind": "promotionalOffer", "productId": "com.example.pro.monthly",
                                           "offerId": "spring", "appAccountToken": token])
        let after = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(answer.exitCode == 0, "\(answer.body) \(answer.stderr)")
        #expect(Set(answer.body.keys) == ["keyId", "nonce", "timestamp", "signature"])
        #expect(answer.body["keyId"] as? String == OfferWorld.offerKeyId)
        let nonce = try #require(answer.body["nonce"] as? String)
        #expect(UUID(uuidString: nonce) != nil && nonce == nonce.lowercased(), "a lowercase UUID: \(nonce)")
        let timestamp = try #require(answer.body["timestamp"] as? Int64)
        #expect((before...after).contains(timestamp), "the real time in milliseconds")
        let der = try #require(Data(base64Encoded: answer.signature), "standard base64")
        #expect(der.first == 0x30, "DER, not r || s")

        let message = [OfferWorld.bundleId, OfferWorld.offerKeyId, "com.example.pro.monthly", "spring", token.lowercased(),
                       nonce, String(timestamp)].joined(separator: Self.separator)
        #expect(try OpenSSLVerify.verifies(message: Data(message.utf8), der: der, publicKey: OfferWorld.offerPublicKey))
        let uppercased = message.replacingOccurrences(of: token.lowercased(), with: token)
        #expect(try !OpenSSLVerify.verifies(message: Data(uppercased.utf8), der: der, publicKey: OfferWorld.offerPublicKey),
                "the token is signed lowercase")
        #expect(try !OpenSSLVerify.verifies(message: Data(message.utf8), der: der, publicKey: OfferWorld.apiPublicKey))

        // Apple's library, given the same nonce and timestamp, signs the same message.
        let apple = try AppleOfferLibrary.sign(["kind": "promotionalOffer", "key": OfferWorld.offerKey, "keyId": OfferWorld.offerKeyId,
                                                "bundleId": OfferWorld.bundleId, "productId": "com.example.pro.monthly",
                                                "offerId": "spring", "appAccountToken": token, "nonce": nonce, "timestamp": timestamp])
        #expect(try OpenSSLVerify.verifies(message: Data(message.utf8), der: try #require(Data(base64Encoded: apple)),
                                           publicKey: OfferWorld.offerPublicKey))
    }

    @Test func withoutAnAppAccountTokenTheMessageHasAnEmptyField() throws {
        let answer = try OfferWorld().run(["kind": "promotionalOffer", "productId": "com.example.pro.monthly", "offerId": "spring"])
        #expect(answer.exitCode == 0, "\(answer.body)")
        let message = [OfferWorld.bundleId, OfferWorld.offerKeyId, "com.example.pro.monthly", "spring", "",
                       answer.body["nonce"] as? String ?? "", String(answer.body["timestamp"] as? Int64 ?? 0)].joined(separator: Self.separator)
        #expect(try OpenSSLVerify.verifies(message: Data(message.utf8), der: try #require(Data(base64Encoded: answer.signature)),
                                           publicKey: OfferWorld.offerPublicKey))
    }

    static var advancedCommerceRequest: [String: Any] { [
        "operation": "CREATE_ONE_TIME_CHARGE", "version": "1", "currency": "USD", "taxCode": "C003-00-2",
        "storefront": "USA",
        "requestInfo": ["requestReferenceId": "3c0f2d5e-9b1a-4f6e-8a2d-7c4b1e0f9a63", "appAccountToken": "8e1a2f47-0c55-4c0b-9a3e-5d7b6c1f2e90"],
        "item": ["SKU": "BOOK_0001", "displayName": "A book", "description": "One book, to keep", "price": 4990],
    ] }

    /// Each JWS kind: Storekeeper's request and the same inputs for Apple's library.
    static var jwsKinds: [(request: [String: Any], apple: [String: Any])] { [
        (["kind": "promotionalOfferV2", "productId": "com.example.pro.monthly", "offerId": "spring", "transactionId": "2000000123"],
         ["kind": "promotionalOfferV2", "productId": "com.example.pro.monthly", "offerId": "spring", "transactionId": "2000000123"]),
        (["kind": "promotionalOfferV2", "productId": "com.example.pro.monthly", "offerId": "spring"],
         ["kind": "promotionalOfferV2", "productId": "com.example.pro.monthly", "offerId": "spring"]),
        (["kind": "introductoryOfferEligibility", "productId": "com.example.pro.yearly", "allowIntroductoryOffer": false,
          "transactionId": "2000000123"],
         ["kind": "introductoryOfferEligibility", "productId": "com.example.pro.yearly", "allowIntroductoryOffer": false,
          "transactionId": "2000000123"]),
        (["kind": "advancedCommerceInApp", "request": advancedCommerceRequest],
         ["kind": "advancedCommerceInApp", "request": advancedCommerceRequest]),
    ] }

    @Test func everyJWSKindIsRun() { #expect(Self.jwsKinds.count == 4, "the arguments below cover them all") }

    @Test(arguments: 0..<4)
    func eachJWSKindHasTheHeaderAndClaimsOfApplesLibrary(_ index: Int) throws {
        let (request, appleSpec) = Self.jwsKinds[index]
        let before = Int64(Date().timeIntervalSince1970)
        let answer = try OfferWorld().run(request)
        #expect(answer.exitCode == 0, "\(answer.body) \(answer.stderr)")
        #expect(Array(answer.body.keys) == ["signature"])
        let apple = try AppleOfferLibrary.sign(appleSpec.merging(["key": OfferWorld.offerKey, "keyId": OfferWorld.offerKeyId,
                                                                  "issuerId": OfferWorld.issuerId, "bundleId": OfferWorld.bundleId]) { $1 })
        let after = Int64(Date().timeIntervalSince1970)
        let ours = try DecodedJWS(answer.signature)
        let theirs = try DecodedJWS(apple)

        #expect(NSDictionary(dictionary: ours.header) == NSDictionary(dictionary: theirs.header),
                "header: ours \(ours.header), Apple's \(theirs.header)")
        #expect(Set(ours.claims.keys) == Set(theirs.claims.keys), "claims: ours \(ours.claims.keys.sorted()), Apple's \(theirs.claims.keys.sorted())")
        for name in theirs.claims.keys.sorted() {
            switch name {
            case "nonce":
                let nonce = try #require(ours.claims["nonce"] as? String)
                #expect(UUID(uuidString: nonce) != nil && nonce == nonce.lowercased(), "a lowercase UUID as Python's: \(nonce)")
                #expect(nonce != theirs.claims["nonce"] as? String)
            case "iat":
                let iat = try #require(ours.claims["iat"] as? Int64)
                #expect((before...after).contains(iat), "seconds, the real time")
                #expect((before...after).contains(try #require(theirs.claims["iat"] as? Int64)))
            case "request":
                let decode = { (claim: Any?) throws -> NSDictionary in
                    let text = try #require(claim as? String)
                    let bytes = try #require(Data(base64Encoded: text), "standard padded base64")
                    return try #require(try JSONSerialization.jsonObject(with: bytes) as? NSDictionary)
                }
                #expect(try decode(ours.claims["request"]) == decode(theirs.claims["request"]))
                #expect(try decode(ours.claims["request"]) == NSDictionary(dictionary: Self.advancedCommerceRequest))
            default:
                #expect(ours.claims[name].map { "\($0)" } == theirs.claims[name].map { "\($0)" }, "\(name)")
            }
        }
        #expect(try ours.verifies(with: OfferWorld.offerPublicKey), "ours verifies with the public key")
        #expect(try theirs.verifies(with: OfferWorld.offerPublicKey), "Apple's verifies with the public key")
        #expect(try !ours.verifies(with: OfferWorld.apiPublicKey), "and with no other key")
    }

    @Test func withoutAnOfferKeyTheAPIKeySigns() throws {
        let keys = ["APPSTORE_KEY_ID": "APIKEY0001", "APPSTORE_PRIVATE_KEY": OfferWorld.apiKey, "APPSTORE_ISSUER_ID": OfferWorld.issuerId]
        let original = try OfferWorld().run(["kind": "promotionalOffer", "productId": "com.example.pro.monthly", "offerId": "spring"], keys: keys)
        #expect(original.body["keyId"] as? String == "APIKEY0001")
        let message = [OfferWorld.bundleId, "APIKEY0001", "com.example.pro.monthly", "spring", "",
                       original.body["nonce"] as? String ?? "", String(original.body["timestamp"] as? Int64 ?? 0)].joined(separator: Self.separator)
        #expect(try OpenSSLVerify.verifies(message: Data(message.utf8), der: try #require(Data(base64Encoded: original.signature)),
                                           publicKey: OfferWorld.apiPublicKey))
        let jws = try OfferWorld().run(["kind": "promotionalOfferV2", "productId": "com.example.pro.monthly", "offerId": "spring"], keys: keys)
        let decoded = try DecodedJWS(jws.signature)
        #expect(decoded.header["kid"] as? String == "APIKEY0001")
        #expect(try decoded.verifies(with: OfferWorld.apiPublicKey))
    }
}
