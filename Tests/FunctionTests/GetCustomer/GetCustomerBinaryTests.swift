import Foundation
import Testing

/// `get-customer` as a black box: purchases ingested through the built binaries, the customer
/// asked about by each id. Without STOREKEEPER_CATALOG the catalog is the one-app one, in
/// which each product grants an entitlement named after itself.
@Suite("get-customer: one customer through the built binaries")
struct GetCustomerBinaryTests {
    typealias World = CustomerWorld
    static let day = World.day
    static let now = World.now

    @Test func eachProductTypeIsAnsweredWhereItBelongs() throws {
        let world = CustomerWorld()
        try world.ingest([
            (World.transaction("5000", product: "com.example.pro.monthly"), World.renewal(original: "5000", product: "com.example.pro.monthly")),
            (World.transaction("5100", product: "com.example.lifetime", type: "Non-Consumable", expires: nil), nil),
            (World.transaction("5200", product: "com.example.pass30", type: "Non-Renewing Subscription", expires: nil), nil),
            (World.transaction("5300", product: "com.example.coins100", type: "Consumable", expires: nil), nil),
        ], userId: "u-types")
        let customer = try world.customerObject(["userId": "u-types"])
        #expect(customer["userId"] as? String == "u-types")
        let entitlements = try #require(customer.object("entitlements"))
        #expect(entitlements.keys.sorted() == ["com.example.lifetime", "com.example.pass30", "com.example.pro.monthly"])
        let monthly = try #require(entitlements.object("com.example.pro.monthly"))
        #expect(monthly["active"] as? Bool == true)
        #expect(monthly["willRenew"] as? Bool == true)
        #expect(monthly["grantedBy"] as? String == "purchase")
        #expect(monthly["environment"] as? String == "Sandbox")
        #expect(monthly["expiresDate"] as? Int64 == Self.now + 29 * Self.day)
        #expect(monthly.keys.contains("unsubscribeDetectedAt") && monthly["unsubscribeDetectedAt"] is NSNull)
        let lifetime = try #require(entitlements.object("com.example.lifetime"))
        #expect(lifetime["active"] as? Bool == true)
        #expect(lifetime["expiresDate"] is NSNull)
        #expect(entitlements.object("com.example.pass30")?["durationUnknown"] as? Bool == true)

        let subscriptions = try #require(customer.object("subscriptions"))
        #expect(subscriptions.keys.sorted() == ["com.example.pro.monthly"])
        let facts = try #require(subscriptions.object("com.example.pro.monthly"))
        #expect(facts["priceUnit"] as? String == "milliunits")
        #expect(facts["appTransactionId"] as? String == "704289572311773000")
        let transactions = try #require(facts["transactions"] as? [[String: Any]])
        #expect(transactions.first?["price"] as? Int == 9990)
        #expect(transactions.first?["storefront"] as? String == "FRA")
        #expect(facts.object("renewal")?["renewalPrice"] as? Int == 9990)

        let others = try #require(customer["nonSubscriptions"] as? [[String: Any]])
        #expect(others.compactMap { $0["productId"] as? String }.sorted()
                == ["com.example.coins100", "com.example.lifetime", "com.example.pass30"])
        // The consumable grants nothing: listed as a purchase, no entitlement, no state.
        let coins = try #require(others.first { $0["productId"] as? String == "com.example.coins100" })
        #expect(coins["type"] as? String == "Consumable")
        #expect(coins["active"] as? Bool == false)
        #expect(coins["status"] is NSNull)
        #expect(coins["entitlements"] as? [String] == [])
        #expect(others.allSatisfy { $0["priceUnit"] as? String == "milliunits" && $0["currency"] as? String == "EUR" })
        let history = try #require(customer["history"] as? [[String: Any]])
        #expect(history.count == 3, "the consumable is a purchase, not a subscription's timeline")
        #expect(history.allSatisfy { $0["type"] as? String == "TRANSACTION" && $0["source"] as? String == "ingest" })
        #expect(history.allSatisfy { $0.keys.contains("subtype") && $0["subtype"] is NSNull }, "every field of the shape, null when unknown")
    }

    @Test func everyIdFindsTheSameCustomer() throws {
        let world = CustomerWorld()
        let token = "5d8c2a8e-9a6f-4a8e-9c59-0e6ad1d7f001"
        try world.ingest([
            (World.transaction("6000", product: "com.example.pro.monthly", purchased: Self.now - 40 * Self.day,
                               expires: Self.now - 10 * Self.day, ["appAccountToken": token]), nil),
            (World.transaction("6001", original: "6000", product: "com.example.pro.monthly", purchased: Self.now - 10 * Self.day,
                               expires: Self.now + 20 * Self.day, ["appAccountToken": token]), nil),
        ], userId: "u-ids")
        for request: [String: Any] in [["userId": "u-ids"], ["appAccountToken": token], ["originalTransactionId": "6000"],
                                       ["transactionId": "6001"], ["appTransactionId": "704289572311773000"]] {
            let customer = try world.customerObject(request)
            #expect(customer["userId"] as? String == "u-ids", "\(request)")
            #expect(customer["appAccountTokens"] as? [String] == [token], "\(request)")
            #expect(customer.object("entitlements")?.object("com.example.pro.monthly")?["active"] as? Bool == true, "\(request)")
        }
        let missing = try world.customer(["transactionId": "9999999"])
        #expect(missing.exitCode == 65)
        #expect(missing.answer.object("error")?["code"] as? String == "customer_not_found")
        let limited = try world.customerObject(["userId": "u-ids", "historyLimit": 1])
        #expect((limited["history"] as? [[String: Any]])?.count == 1)
    }

    @Test(arguments: [
        (nil, nil, "normal"), (1, "FREE_TRIAL", "trial"), (1, "PAY_UP_FRONT", "intro"), (2, "PAY_AS_YOU_GO", "promotional"),
        (3, "FREE_TRIAL", "offer_code"), (4, "PAY_AS_YOU_GO", "win_back"),
    ] as [(Int?, String?, String)])
    func eachPeriodType(offerType: Int?, discount: String?, expected: String) throws {
        let world = CustomerWorld()
        try world.ingest([(World.transaction("7000", product: "com.example.pro.monthly",
                                             ["offerType": offerType, "offerDiscountType": discount, "offerPeriod": "P1M"]), nil)],
                         userId: "u-offer")
        let entitlement = try world.customerObject(["userId": "u-offer"]).object("entitlements")?.object("com.example.pro.monthly")
        #expect(entitlement?["periodType"] as? String == expected)
    }

    @Test func aCrossgradeMovesTheEntitlementAndADowngradeWaitsForTheRenewal() throws {
        let world = CustomerWorld()
        let upgraded = Self.now - 5 * Self.day
        try world.ingest([
            (World.transaction("8000", product: "com.example.pro.monthly", purchased: Self.now - 20 * Self.day,
                               expires: Self.now + 10 * Self.day, ["isUpgraded": true, "signedDate": upgraded]), nil),
            (World.transaction("8001", original: "8000", product: "com.example.pro.yearly", purchased: upgraded,
                               expires: upgraded + 365 * Self.day, ["signedDate": upgraded]),
             World.renewal(original: "8000", product: "com.example.pro.monthly", signed: upgraded + 1000,
                           ["productId": "com.example.pro.yearly"])),
        ], userId: "u-group")
        let customer = try world.customerObject(["userId": "u-group"])
        let entitlements = try #require(customer.object("entitlements"))
        // The crossgrade: the yearly gives access now; the monthly it replaced gives nothing more.
        #expect(entitlements.keys.sorted() == ["com.example.pro.yearly"])
        #expect(entitlements.object("com.example.pro.yearly")?["expiresDate"] as? Int64 == upgraded + 365 * Self.day)
        // The downgrade to the monthly takes effect at the renewal: the yearly stays until then.
        let yearly = try #require(customer.object("subscriptions")?.object("com.example.pro.yearly"))
        #expect(yearly["autoRenewProductId"] as? String == "com.example.pro.monthly")
        #expect(yearly["status"] as? String == "active")
        #expect((yearly["transactions"] as? [[String: Any]])?.map { $0["productId"] as? String }
                == ["com.example.pro.monthly", "com.example.pro.yearly"])
    }

    @Test func familySharingIsSaidAndItsRevocationIsNotARefund() throws {
        let world = CustomerWorld()
        try world.ingest([
            (World.transaction("9000", product: "com.example.pro.monthly", ["inAppOwnershipType": "FAMILY_SHARED"]), nil),
            (World.transaction("9100", product: "com.example.team", purchased: Self.now - 2 * Self.day,
                               ["inAppOwnershipType": "ASSIGNED", "revocationDate": Self.now - Self.day, "revocationReason": 0,
                                "signedDate": Self.now - Self.day]), nil),
        ], userId: "u-family")
        let customer = try world.customerObject(["userId": "u-family"])
        let shared = try #require(customer.object("entitlements")?.object("com.example.pro.monthly"))
        #expect(shared["isFamilyShare"] as? Bool == true)
        #expect(shared["active"] as? Bool == true)
        let seat = try #require(customer.object("subscriptions")?.object("com.example.team"))
        #expect(seat["status"] as? String == "revoked")
        #expect(customer.object("entitlements")?.object("com.example.team")?["expirationReason"] as? String == "revoked")
    }
}
