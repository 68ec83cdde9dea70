import Foundation
import Testing

/// `get-customer` with a catalog (STOREKEEPER_CATALOG): entitlements by name, given by several
/// products, decided by the latest expiry; the sandbox policy; non-renewing durations.
@Suite("get-customer: entitlements from the catalog")
struct GetCustomerCatalogTests {
    typealias World = CustomerWorld
    static let day = World.day
    static let now = World.now

    @Test func aRefundOfOneOfTwoProductsLeavesProToTheOther() throws {
        let world = try World.withCatalog(World.proCatalog())
        try world.ingest([
            (World.transaction("5000", product: "com.example.pro.monthly"), World.renewal(original: "5000", product: "com.example.pro.monthly")),
            (World.transaction("5100", product: "com.example.lifetime", type: "Non-Consumable", expires: nil), nil),
        ], userId: "u-two")
        let both = try #require(try world.customerObject(["userId": "u-two"]).object("entitlements"))
        #expect(both.keys.sorted() == ["pro"])
        #expect(both.object("pro")?["productId"] as? String == "com.example.lifetime", "no expiry is the latest")

        // Apple refunds the lifetime purchase: pro stays, now from the monthly.
        try world.ingest([(World.transaction("5100", product: "com.example.lifetime", type: "Non-Consumable", expires: nil,
                                             ["revocationDate": Self.now - 3_600_000, "revocationReason": 0,
                                              "revocationType": "REFUND_FULL", "signedDate": Self.now - 3_600_000]), nil)],
                         userId: "u-two")
        let customer = try world.customerObject(["userId": "u-two"])
        let pro = try #require(customer.object("entitlements")?.object("pro"))
        #expect(pro["active"] as? Bool == true)
        #expect(pro["productId"] as? String == "com.example.pro.monthly")
        let lifetime = try #require((customer["nonSubscriptions"] as? [[String: Any]])?.first)
        #expect(lifetime["status"] as? String == "refunded")
        #expect(lifetime["revocationDate"] as? Int64 == Self.now - 3_600_000)
        #expect(lifetime["active"] as? Bool == false)
    }

    @Test(arguments: [true, false])
    func sandboxPurchasesGrantOnlyWhenTheAppSaysSo(sandboxGrants: Bool) throws {
        let world = try World.withCatalog(World.proCatalog(sandboxGrants: sandboxGrants))
        try world.ingest([(World.transaction("6000", product: "com.example.pro.monthly"), nil)], userId: "u-review")
        let customer = try world.customerObject(["userId": "u-review"])
        let pro = try #require(customer.object("entitlements")?.object("pro"))
        #expect(pro["active"] as? Bool == sandboxGrants)
        #expect(pro["environment"] as? String == "Sandbox")
        #expect(pro["expirationReason"] as? String == (sandboxGrants ? nil : "sandbox_not_granting"))
        // Visible either way, with where it came from.
        let monthly = try #require(customer.object("subscriptions")?.object("com.example.pro.monthly"))
        #expect(monthly["status"] as? String == "active")
        #expect(monthly["active"] as? Bool == sandboxGrants)
    }

    @Test func aPassEndsDurationDaysAfterItsPurchase() throws {
        let world = try World.withCatalog(World.proCatalog())
        let bought = Self.now - 31 * Self.day
        try world.ingest([
            (World.transaction("7000", product: "com.example.pass30", type: "Non-Renewing Subscription", purchased: bought, expires: nil), nil),
        ], userId: "u-pass")
        let customer = try world.customerObject(["userId": "u-pass"])
        let pro = try #require(customer.object("entitlements")?.object("pro"))
        #expect(pro["active"] as? Bool == false)
        #expect(pro["expiresDate"] as? Int64 == bought + 30 * Self.day)
        #expect(pro["durationUnknown"] == nil)
        let pass = try #require((customer["nonSubscriptions"] as? [[String: Any]])?.first)
        #expect(pass["status"] as? String == "expired")
        #expect(pass["durationUnknown"] as? Bool == false)
        // A second pass bought yesterday: pro again, until 30 days after it.
        try world.ingest([
            (World.transaction("7100", product: "com.example.pass30", type: "Non-Renewing Subscription", purchased: Self.now - Self.day,
                               expires: nil), nil),
        ], userId: "u-pass")
        let again = try #require(try world.customerObject(["userId": "u-pass"]).object("entitlements")?.object("pro"))
        #expect(again["active"] as? Bool == true)
        #expect(again["expiresDate"] as? Int64 == Self.now + 29 * Self.day)
    }

    /// get-entitlements answers through the same decision: with the catalog the pass has ended;
    /// without one its end is unknown and it stays active, as it always did.
    @Test func getEntitlementsDecidesThePassLikeGetCustomer() throws {
        var world = try World.withCatalog(World.proCatalog())
        try world.ingest([(World.transaction("7200", product: "com.example.pass30", type: "Non-Renewing Subscription",
                                             purchased: Self.now - 31 * Self.day, expires: nil), nil)], userId: "u-old-pass")
        func entitlement() throws -> [String: Any] {
            let result = try FunctionBinary(name: "get-entitlements").run(stdin: Data(#"{"userId": "u-old-pass"}"#.utf8),
                                                                          environment: world.environment)
            #expect(result.exitCode == 0, "\(result.stderrText)")
            let answer = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
            return try #require((answer["entitlements"] as? [[String: Any]])?.first, "\(answer)")
        }
        let decided = try entitlement()
        #expect(decided["status"] as? String == "expired")
        #expect(decided["active"] as? Bool == false)
        #expect(decided["expiresDate"] as? Int64 == Self.now - Self.day, "30 days after a purchase 31 days ago")
        world.extraEnvironment["STOREKEEPER_CATALOG"] = nil
        let alone = try entitlement()
        #expect(alone["status"] as? String == "active")
        #expect(alone["expiresDate"] == nil)
    }

    /// Two apps in one deployment, the same small original transaction id in each (test
    /// environments hand them out): two purchases of one customer, never one record; bundleId
    /// narrows the answer to one app.
    @Test func twoAppsKeepTheirPurchasesApart() throws {
        let other = "com.example.notes"
        var catalog = World.proCatalog()
        catalog["apps"] = [["bundleId": World.bundleId, "appAppleId": 1_234_567_890, "environments": ["Sandbox"]],
                           ["bundleId": other, "appAppleId": 1_234_567_891, "environments": ["Sandbox"]]]
        catalog["entitlements"] = ["pro": ["description": "Paid features"], "notes-plus": ["description": "Notes"]]
        catalog["products"] = ["com.example.pro.monthly": ["bundleId": World.bundleId, "entitlements": ["pro"]],
                               "com.example.notes.monthly": ["bundleId": other, "entitlements": ["notes-plus"]]]
        let world = try World.withCatalog(catalog)
        try world.ingest([
            (World.transaction("1000", product: "com.example.pro.monthly"), nil),
            (World.transaction("1000", product: "com.example.notes.monthly", ["bundleId": other]), nil),
        ], userId: "u-portfolio")
        let both = try world.customerObject(["userId": "u-portfolio"])
        #expect(both.object("entitlements")?.keys.sorted() == ["notes-plus", "pro"])
        let subscriptions = try #require(both.object("subscriptions"))
        #expect(subscriptions.object("com.example.notes.monthly")?["bundleId"] as? String == other)
        #expect(subscriptions.object("com.example.pro.monthly")?["bundleId"] as? String == World.bundleId)
        let notes = try world.customerObject(["originalTransactionId": "1000", "bundleId": other])
        #expect(notes["userId"] as? String == "u-portfolio")
        #expect(notes.object("entitlements")?.keys.sorted() == ["notes-plus"])
    }

    @Test func aBundleIdTheCatalogDoesNotListIsRefused() throws {
        let world = try World.withCatalog(World.proCatalog())
        let (exitCode, answer) = try world.customer(["userId": "u", "bundleId": "com.example.unknown"])
        #expect(exitCode == 65)
        #expect(answer.object("error")?["code"] as? String == "invalid_request")
    }
}
