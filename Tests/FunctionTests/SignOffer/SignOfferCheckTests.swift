import Foundation
import Testing

/// sign-offer's refusals (bad input with stable codes, missing keys) and its optional
/// eligibility checks, through the built binary.
@Suite("sign-offer: bad input, keys and eligibility checks")
struct SignOfferCheckTests {
    static var v1: [String: Any] { ["kind": "promotionalOffer", "productId": "com.example.pro.monthly", "offerId": "spring"] }

    static var badRequests: [(request: [String: Any], code: String, message: String)] { [
        (["kind": "promotionalOffer3", "productId": "p", "offerId": "o"], "invalid_request", "kind must be one of"),
        (["kind": "promotionalOffer", "offerId": "o"], "invalid_request", "productId is required"),
        (["kind": "promotionalOffer", "productId": "p", "offerId": "o", "transactionId": "1"], "invalid_request", "takes no transactionId"),
        (["kind": "promotionalOffer", "productId": "p", "offerId": "o", "appAccountToken": "not-a-uuid"], "invalid_request", "UUID"),
        (["kind": "promotionalOffer", "productId": "p\u{2063}x", "offerId": "o"], "invalid_request", "U+2063"),
        (["kind": "promotionalOfferV2", "productId": "p", "offerId": "o", "appAccountToken": "8e1a2f47-0c55-4c0b-9a3e-5d7b6c1f2e90"],
         "invalid_request", "takes no appAccountToken"),
        (["kind": "introductoryOfferEligibility", "productId": "p", "transactionId": "1"], "invalid_request", "give allowIntroductoryOffer"),
        (["kind": "introductoryOfferEligibility", "productId": "p", "transactionId": "1", "allowIntroductoryOffer": true,
          "decideEligibility": true], "invalid_request", "not both"),
        (["kind": "introductoryOfferEligibility", "productId": "p", "allowIntroductoryOffer": true], "invalid_request",
         "transactionId is required"),
        (["kind": "advancedCommerceInApp", "request": "e30="], "invalid_request", "JSON object"),
        (["kind": "advancedCommerceInApp", "request": ["operation": "CREATE_ONE_TIME_CHARGE", "version": "1"]], "invalid_request",
         "requestReferenceId"),
        (["kind": "promotionalOffer", "productId": "p", "offerId": "o", "bundleId": "com.example.other"], "invalid_request",
         "not one of this deployment's apps"),
        (["kind": "promotionalOffer", "productId": "p", "offerId": "o", "signature": "x"], "unknown_field", "signature"),
        (["productId": "p", "offerId": "o"], "invalid_request", "kind"),
        (["kind": "promotionalOfferV2", "productId": "p", "offerId": "o", "userId": "user-1"], "invalid_request", "checks only"),
    ] }

    @Test func everyBadRequestIsRun() { #expect(Self.badRequests.count == 15, "the arguments below cover them all") }

    @Test(arguments: 0..<15)
    func badInputIsRefusedWithAStableCode(_ index: Int) throws {
        let (request, code, message) = Self.badRequests[index]
        let answer = try OfferWorld().run(request)
        #expect(answer.exitCode == 65)
        #expect(answer.errorCode == code, "\(answer.body)")
        let text = (answer.body["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(text.contains(message), "\(text)")
    }

    @Test func aCatalogRefusesProductsItDoesNotSellAsSubscriptions() throws {
        var world = OfferWorld()
        world.catalog = try OfferWorld.catalogFile(products: [
            "com.example.pro.monthly": ["entitlements": ["pro"]], "com.example.coins": ["type": "Consumable"],
        ], entitlements: ["pro"])
        let unknown = try world.run(["kind": "promotionalOffer", "productId": "com.example.nope", "offerId": "o"])
        #expect(unknown.errorCode == "invalid_request" && unknown.exitCode == 65, "\(unknown.body)")
        let consumable = try world.run(["kind": "promotionalOfferV2", "productId": "com.example.coins", "offerId": "o"])
        #expect(consumable.errorCode == "invalid_request", "\(consumable.body)")
        #expect(try world.run(Self.v1).exitCode == 0)
    }

    @Test func missingOrHalfAKeyIsAConfigurationError() throws {
        let cases: [[String: String]] = [
            [:],
            ["APPSTORE_OFFER_KEY_ID": "OFFERKEY01"],
            ["APPSTORE_OFFER_PRIVATE_KEY": OfferWorld.offerKey, "APPSTORE_KEY_ID": "APIKEY0001", "APPSTORE_PRIVATE_KEY": OfferWorld.apiKey],
            ["APPSTORE_OFFER_KEY_ID": "OFFERKEY01", "APPSTORE_OFFER_PRIVATE_KEY": "/nonexistent/key.p8"],
            ["APPSTORE_OFFER_KEY_ID": "OFFERKEY01", "APPSTORE_OFFER_PRIVATE_KEY": OfferWorld.root.appendingPathComponent("Tests/Fixtures/pki/root.pem").path],
        ]
        for keys in cases {
            let answer = try OfferWorld().run(Self.v1, keys: keys)
            #expect(answer.exitCode == 78, "\(keys.keys.sorted()): \(answer.body)")
            #expect(answer.errorCode == "configuration_error")
            #expect(!answer.stderr.contains("BEGIN"), "no key material in the log")
        }
    }

    @Test func theJWSKindsNeedTheIssuerTheOriginalDoesNot() throws {
        let keys = ["APPSTORE_OFFER_KEY_ID": "OFFERKEY01", "APPSTORE_OFFER_PRIVATE_KEY": OfferWorld.offerKey]
        #expect(try OfferWorld().run(Self.v1, keys: keys).exitCode == 0)
        let jws = try OfferWorld().run(["kind": "promotionalOfferV2", "productId": "com.example.pro.monthly", "offerId": "spring"], keys: keys)
        #expect(jws.exitCode == 78 && jws.errorCode == "configuration_error", "\(jws.body)")
    }

    @Test func aWinBackOfferIsSignedOnlyWhenTheRenewalInfoListsIt() throws {
        let world = OfferWorld()
        try world.purchase("3000000001", userId: "user-1", productId: "com.example.pro.monthly", winBackOffers: ["comeback"])
        for kind in ["promotionalOffer", "promotionalOfferV2"] {
            let listed = try world.run(["kind": kind, "productId": "com.example.pro.monthly", "offerId": "comeback",
                                        "winBackOffer": true, "userId": "user-1"])
            #expect(listed.exitCode == 0, "\(listed.body)")
            let other = try world.run(["kind": kind, "productId": "com.example.pro.monthly", "offerId": "spring",
                                       "winBackOffer": true, "userId": "user-1"])
            #expect(other.exitCode == 65 && other.errorCode == "offer_not_eligible", "\(other.body)")
            let stranger = try world.run(["kind": kind, "productId": "com.example.pro.monthly", "offerId": "comeback",
                                          "winBackOffer": true, "userId": "user-2"])
            #expect(stranger.errorCode == "offer_not_eligible", "\(stranger.body)")
            let unchecked = try world.run(["kind": kind, "productId": "com.example.pro.monthly", "offerId": "spring"])
            #expect(unchecked.exitCode == 0, "without the flag nothing is checked")
        }
        let byTransaction = try world.run(["kind": "promotionalOfferV2", "productId": "com.example.pro.monthly", "offerId": "comeback",
                                           "winBackOffer": true, "transactionId": "3000000001"])
        #expect(byTransaction.exitCode == 0, "the customer found by a transaction: \(byTransaction.body)")
        let nobody = try world.run(["kind": "promotionalOfferV2", "productId": "com.example.pro.monthly", "offerId": "comeback",
                                    "winBackOffer": true])
        #expect(nobody.errorCode == "invalid_request", "the check needs the customer: \(nobody.body)")
    }

    @Test func decideEligibilityReadsTheCustomersHistoryInTheProductsGroup() throws {
        var world = OfferWorld()
        world.catalog = try OfferWorld.catalogFile(products: [
            "com.example.pro.monthly": ["entitlements": ["pro"], "subscriptionGroupIdentifier": "21000001"],
            "com.example.pro.yearly": ["entitlements": ["pro"], "subscriptionGroupIdentifier": "21000001"],
            "com.example.plus.monthly": ["entitlements": ["plus"], "subscriptionGroupIdentifier": "21000002"],
        ], entitlements: ["pro", "plus"])
        try world.purchase("3000000002", userId: "user-1", productId: "com.example.pro.monthly", group: "21000001")
        func decide(_ productId: String, _ transactionId: String, userId: String? = nil) throws -> (Bool?, Bool?) {
            var request: [String: Any] = ["kind": "introductoryOfferEligibility", "productId": productId,
                                          "transactionId": transactionId, "decideEligibility": true]
            if let userId { request["userId"] = userId }
            let answer = try world.run(request)
            #expect(answer.exitCode == 0, "\(answer.body)")
            let claim = try DecodedJWS(answer.signature).claims["allowIntroductoryOffer"] as? Bool
            return (answer.body["allowIntroductoryOffer"] as? Bool, claim)
        }
        #expect(try decide("com.example.pro.yearly", "3000000002") == (false, false), "had a subscription of the group")
        #expect(try decide("com.example.pro.monthly", "3000000002") == (false, false), "had the product itself")
        #expect(try decide("com.example.plus.monthly", "3000000002") == (true, true), "another group")
        #expect(try decide("com.example.pro.yearly", "9999", userId: "user-1") == (false, false), "found by userId")
        #expect(try decide("com.example.pro.yearly", "9999") == (true, true), "a customer Storekeeper never saw")
    }

    @Test func anUnknownGroupIsNotGuessed() throws {
        let world = OfferWorld()
        try world.purchase("3000000003", userId: "user-1", productId: "com.example.pro.monthly", group: "21000001")
        let answer = try world.run(["kind": "introductoryOfferEligibility", "productId": "com.example.pro.yearly",
                                    "transactionId": "3000000003", "decideEligibility": true])
        #expect(answer.errorCode == "invalid_request", "without the catalog's group: \(answer.body)")
        let own = try world.run(["kind": "introductoryOfferEligibility", "productId": "com.example.pro.monthly",
                                 "transactionId": "3000000003", "decideEligibility": true])
        #expect(own.body["allowIntroductoryOffer"] as? Bool == false, "the product itself needs no group: \(own.body)")
    }
}
