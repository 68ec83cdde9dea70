import Foundation
import Testing
import TestSupport

/// retention-message through its binary: Apple's signed realtime request in, Apple's response
/// shape out, answered per catalog rule; promotional offers checked by implementations
/// Storekeeper does not share; every fallback answering the default message.
@Suite("retention-message: Apple's realtime requests answered from the catalog's rules")
struct RetentionMessageBinaryTests {
    static let separator = "\u{2063}"

    @Test func aMonthlySubscriberIsOfferedTheYearlyPlanWithoutAStoreRead() throws {
        var world = RetentionWorld()
        world.store = "redis://127.0.0.1:1/0"
        let answer = try world.answer(try RetentionWorld.request(product: "com.example.pro.monthly"))
        #expect(answer.exitCode == 0, "\(answer.body) \(answer.stderr)")
        #expect(NSDictionary(dictionary: answer.body) == [
            "alternateProduct": ["messageIdentifier": "0a6f3d52-7c1e-4b8a-9e2d-000000000003", "productId": "com.example.pro.yearly"],
        ])
        #expect(answer.answered["rule"] as? String == "monthly-to-yearly")
    }

    @Test func aYearlySubscriberInTheFirstYearGetsAPromotionalOfferSignedAsApplesLibrarySignsIt() throws {
        let world = RetentionWorld()
        try world.subscribe("com.example.pro.yearly", daysAgo: 200)
        let before = Int64(Date().timeIntervalSince1970)
        let answer = try world.answer(try RetentionWorld.request(product: "com.example.pro.yearly"))
        #expect(answer.exitCode == 0, "\(answer.body) \(answer.stderr)")
        let offer = try #require(answer.body["promotionalOffer"] as? [String: Any], "\(answer.body)")
        #expect(Set(answer.body.keys) == ["promotionalOffer"])
        #expect(offer["messageIdentifier"] as? String == "0a6f3d52-7c1e-4b8a-9e2d-000000000001")
        #expect(offer["promotionalOfferSignatureV1"] == nil)
        let jws = try DecodedJWS(try #require(offer["promotionalOfferSignatureV2"] as? String))
        #expect(try jws.verifies(with: OfferWorld.offerPublicKey), "openssl verifies it under the offer key")
        #expect(try !jws.verifies(with: OfferWorld.apiPublicKey))

        let apple = try DecodedJWS(try AppleOfferLibrary.sign([
            "kind": "promotionalOfferV2", "key": OfferWorld.offerKey, "keyId": OfferWorld.offerKeyId, "issuerId": OfferWorld.issuerId,
            "bundleId": OfferWorld.bundleId, "productId": "com.example.pro.yearly", "offerId": "stay-yearly-50",
            "transactionId": RetentionWorld.originalTransactionId,
        ]))
        #expect(NSDictionary(dictionary: jws.header) == NSDictionary(dictionary: apple.header))
        #expect(Set(jws.claims.keys) == Set(apple.claims.keys))
        for name in ["iss", "bid", "aud", "productId", "offerIdentifier", "transactionId"] {
            #expect(jws.claims[name] as? String == apple.claims[name] as? String, "\(name)")
        }
        let iat = try #require(jws.claims["iat"] as? Int64)
        #expect((before...Int64(Date().timeIntervalSince1970)).contains(iat), "the real time, in seconds")
        #expect(answer.answered["rule"] as? String == "yearly-first-year")
        #expect(!answer.stderr.contains(try #require(offer["promotionalOfferSignatureV2"] as? String)), "no signature in the log")
    }

    @Test func aLoyalYearlySubscriberGetsTheThankYouMessage() throws {
        let world = RetentionWorld()
        try world.subscribe("com.example.pro.yearly", daysAgo: 400)
        let answer = try world.answer(try RetentionWorld.request(product: "com.example.pro.yearly"))
        #expect(NSDictionary(dictionary: answer.body) == ["message": ["messageIdentifier": "0a6f3d52-7c1e-4b8a-9e2d-000000000002"]])
        #expect(answer.answered["rule"] as? String == "yearly-loyal")
    }

    @Test func anOfferAlreadyRedeemedAnswersTheDefault() throws {
        let world = RetentionWorld()
        try world.subscribe("com.example.pro.yearly", daysAgo: 100, offerType: 2)
        let answer = try world.answer(try RetentionWorld.request(product: "com.example.pro.yearly"))
        #expect(NSDictionary(dictionary: answer.body) == ["message": ["messageIdentifier": RetentionWorld.defaultMessage]])
        #expect(answer.answered["fallback"] as? String == "no_rule_matched")
    }

    @Test func theOriginalSignatureVerifiesWithOpenSSLOverTheDocumentedMessage() throws {
        let answer = try RetentionWorld().answer(try RetentionWorld.request(product: "com.example.pro.monthly", locale: "fr-FR"))
        #expect(answer.exitCode == 0, "\(answer.body) \(answer.stderr)")
        let offer = try #require(answer.body["promotionalOffer"] as? [String: Any])
        let v1 = try #require(offer["promotionalOfferSignatureV1"] as? [String: Any], "\(offer)")
        #expect(v1["keyId"] as? String == OfferWorld.offerKeyId)
        #expect(v1["productId"] as? String == "com.example.pro.monthly")
        #expect(v1["offerIdentifier"] as? String == "reste-mensuel")
        let nonce = try #require(v1["nonce"] as? String)
        #expect(UUID(uuidString: nonce) != nil && nonce == nonce.lowercased())
        let timestamp = try #require(v1["timestamp"] as? Int64)
        let message = [OfferWorld.bundleId, OfferWorld.offerKeyId, "com.example.pro.monthly", "reste-mensuel", "", nonce,
                       String(timestamp)].joined(separator: Self.separator)
        let encoded = try #require(v1["encodedSignature"] as? String)
        let der = try #require(Data(base64Encoded: encoded))
        #expect(try OpenSSLVerify.verifies(message: Data(message.utf8), der: der, publicKey: OfferWorld.offerPublicKey))
        #expect(try !OpenSSLVerify.verifies(message: Data(message.utf8) + Data("0".utf8), der: der, publicKey: OfferWorld.offerPublicKey))
        // Apple's library, given the same nonce and timestamp, signs the same message.
        let apple = try AppleOfferLibrary.sign(["kind": "promotionalOffer", "key": OfferWorld.offerKey, "keyId": OfferWorld.offerKeyId,
                                                "bundleId": OfferWorld.bundleId, "productId": "com.example.pro.monthly",
                                                "offerId": "reste-mensuel", "nonce": nonce, "timestamp": timestamp])
        #expect(try OpenSSLVerify.verifies(message: Data(message.utf8), der: try #require(Data(base64Encoded: apple)),
                                           publicKey: OfferWorld.offerPublicKey))
    }

    @Test func withoutAnOfferKeyTheDefaultMessageAnswers() throws {
        var world = RetentionWorld()
        world.keys = [:]
        let answer = try world.answer(try RetentionWorld.request(product: "com.example.pro.monthly", locale: "fr-FR"))
        #expect(answer.exitCode == 0)
        #expect(NSDictionary(dictionary: answer.body) == ["message": ["messageIdentifier": RetentionWorld.defaultMessage]])
        #expect(answer.answered["fallback"] as? String == "offer_key_missing")
        #expect(answer.answered["rule"] as? String == "default")
    }

    @Test func withoutAnIssuerTheV2OfferFallsBackToTheDefault() throws {
        var world = RetentionWorld()
        world.keys["APPSTORE_ISSUER_ID"] = nil
        try world.subscribe("com.example.pro.yearly", daysAgo: 10)
        let answer = try world.answer(try RetentionWorld.request(product: "com.example.pro.yearly"))
        #expect(NSDictionary(dictionary: answer.body) == ["message": ["messageIdentifier": RetentionWorld.defaultMessage]])
        #expect(answer.answered["fallback"] as? String == "signing_failed")
    }

    @Test func aStoreOutageAnswersTheDefaultMessageNotAnError() throws {
        var world = RetentionWorld()
        world.store = "redis://127.0.0.1:1/0"
        let answer = try world.answer(try RetentionWorld.request(product: "com.example.pro.yearly"))
        #expect(answer.exitCode == 0, "\(answer.body) \(answer.stderr)")
        #expect(NSDictionary(dictionary: answer.body) == ["message": ["messageIdentifier": RetentionWorld.defaultMessage]])
        #expect(answer.answered["fallback"] as? String == "store_unavailable")
    }

    @Test func aSpentTimeBudgetAnswersTheDefaultRatherThanLate() throws {
        var world = RetentionWorld()
        // A fresh store: the chain is proven from scratch, which alone takes longer than 1 ms;
        // without the budget the answer would be rule_unevaluable (no record).
        world.catalog = try RetentionWorld.catalog(timeBudgetMilliseconds: 1)
        let answer = try world.answer(try RetentionWorld.request(product: "com.example.pro.yearly"))
        #expect(answer.exitCode == 0)
        #expect(NSDictionary(dictionary: answer.body) == ["message": ["messageIdentifier": RetentionWorld.defaultMessage]])
        #expect(answer.answered["fallback"] as? String == "time_budget_exceeded", "\(answer.answered)")
    }

    @Test func anUnknownSubscriptionIsUnevaluableAndAnswersTheDefault() throws {
        let answer = try RetentionWorld().answer(try RetentionWorld.request(product: "com.example.pro.yearly"))
        #expect(NSDictionary(dictionary: answer.body) == ["message": ["messageIdentifier": RetentionWorld.defaultMessage]])
        #expect(answer.answered["fallback"] as? String == "rule_unevaluable")
    }

    @Test func aForgedOrForeignRequestIsRefusedAndNothingIsLoggedOfIt() throws {
        let world = RetentionWorld()
        let genuine = try RetentionWorld.request(product: "com.example.pro.monthly")
        let other = try RetentionWorld.request(product: "com.example.pro.yearly")
        let parts = genuine.split(separator: ".").map(String.init)
        let swapped = [parts[0], other.split(separator: ".").map(String.init)[1], parts[2]].joined(separator: ".")
        let forged = try world.answer(swapped)
        #expect(forged.exitCode == 65)
        #expect(forged.errorCode == "VERIFICATION_FAILURE")
        #expect(!forged.stderr.contains(parts[2]) && !forged.stderr.contains(parts[1]), "no JWS in the log")

        let foreign = try world.answer(try RetentionWorld.request(product: "com.example.pro.monthly", appAppleId: 42))
        #expect(foreign.exitCode == 65)
        #expect(foreign.errorCode == "INVALID_APP_IDENTIFIER")

        let notARequest = try world.answer(try OfferWorld.simulate("renewalInfo", [
            "originalTransactionId": "1", "productId": "com.example.pro.monthly", "environment": "Sandbox",
        ]))
        #expect(notARequest.errorCode == "INVALID_JWT_FORMAT")
    }

    @Test func anAnswerNeverCallsAppleWhateverTheEnvironmentOffers() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        var world = RetentionWorld()
        world.keys = OfferWorld.keys.merging(["APPSTORE_KEY_ID": FakeAppStore.keyId, "APPSTORE_PRIVATE_KEY": FakeAppStore.apiKeyPath,
                                              "APPSTORE_API_BASE_URL": fake.baseURL]) { $1 }
        try world.subscribe("com.example.pro.yearly", daysAgo: 30)
        for request in [try RetentionWorld.request(product: "com.example.pro.yearly"),
                        try RetentionWorld.request(product: "com.example.pro.yearly", originalTransactionId: "2000000888"),
                        try RetentionWorld.request(product: "com.example.pro.monthly", appAppleId: 7)] {
            _ = try world.answer(request)
        }
        #expect(try fake.requests().isEmpty, "the public route spent none of Apple's quota")
    }
}
