import Foundation
import StorekeeperCore
import Testing

/// The customer answer computed from records, grants and the catalog, in process.
@Suite("Customer answer: entitlements from the catalog, purchases, timeline")
struct CustomerAnswerTests {
    static let day = LifecycleSimulator.day
    static let start: Int64 = 1_780_272_000_000
    static let bundleId = "com.example.storekeeper"

    static func catalog(sandboxGrants: Bool = true) -> Catalog {
        Catalog(
            apps: [CatalogApp(bundleId: bundleId, appAppleId: 1_234_567_890, environments: [.production, .sandbox],
                              sandboxGrants: sandboxGrants)],
            entitlements: ["pro": CatalogEntitlement()],
            products: [
                "com.example.pro.monthly": CatalogProduct(productId: "com.example.pro.monthly", bundleId: bundleId, entitlements: ["pro"]),
                "com.example.lifetime": CatalogProduct(productId: "com.example.lifetime", bundleId: bundleId, entitlements: ["pro"]),
                "com.example.pass30": CatalogProduct(productId: "com.example.pass30", bundleId: bundleId,
                                                     type: .nonRenewingSubscription, durationDays: 30, entitlements: ["pro"]),
            ])
    }

    static func record(_ simulator: LifecycleSimulator) throws -> EntitlementRecord {
        try #require(try LifecycleSimulator.inOrderRecord(simulator.notifications))
    }

    static func answer(_ records: [EntitlementRecord], grants: [EntitlementGrant] = [], catalog: Catalog = catalog(),
                       at now: Int64) -> CustomerAnswer {
        CustomerAnswer(of: .init(userId: "u1", records: records, customer: CustomerRecord(userId: "u1", grants: grants)),
                       catalog: catalog, now: now)
    }

    @Test func aRefundOfOneOfTwoProductsLeavesTheEntitlementToTheOther() throws {
        var monthly = LifecycleSimulator(originalTransactionId: "1000")
        monthly.subscribe()
        var lifetime = LifecycleSimulator(originalTransactionId: "2000", productType: "Non-Consumable")
        lifetime.productId = "com.example.lifetime"
        lifetime.subscribe()
        let bothAnswer = Self.answer([try Self.record(monthly), try Self.record(lifetime)], at: Self.start + Self.day)
        #expect(bothAnswer.entitlements["pro"]?.productId == "com.example.lifetime", "no expiry decides over a month")
        lifetime.refund()
        let answer = Self.answer([try Self.record(monthly), try Self.record(lifetime)], at: Self.start + Self.day)
        let pro = try #require(answer.entitlements["pro"])
        #expect(pro.active)
        #expect(pro.productId == "com.example.pro.monthly")
        #expect(pro.grantedBy == .purchase)
        #expect(answer.nonSubscriptions.map(\.status) == [.refunded])
        #expect(answer.subscriptions["com.example.pro.monthly"]?.status == .active)
    }

    @Test func aNonRenewingSubscriptionEndsAfterItsCatalogDuration() throws {
        var pass = LifecycleSimulator(originalTransactionId: "3000", productType: "Non-Renewing Subscription")
        pass.productId = "com.example.pass30"
        pass.subscribe()
        let record = try Self.record(pass)
        let purchase = try #require(record.latestTransaction?.purchaseDate)
        let during = Self.answer([record], at: purchase + 29 * Self.day).entitlements["pro"]
        #expect(during?.active == true)
        #expect(during?.expiresDate == purchase + 30 * Self.day)
        #expect(during?.durationUnknown == false)
        let after = Self.answer([record], at: purchase + 31 * Self.day)
        #expect(after.entitlements["pro"]?.active == false)
        #expect(after.nonSubscriptions.first?.status == .expired)
        // Without a catalog entry its end is unknown: today's behaviour, said so.
        let implied = Catalog.singleApp(bundleId: Self.bundleId, appAppleId: nil, environments: [.sandbox])
        let unknown = Self.answer([record], catalog: implied, at: purchase + 400 * Self.day)
        #expect(unknown.entitlements["com.example.pass30"]?.active == true)
        #expect(unknown.entitlements["com.example.pass30"]?.durationUnknown == true)
        #expect(unknown.nonSubscriptions.first?.durationUnknown == true)
    }

    @Test func sandboxPurchasesGrantUnlessTheAppSaysNot() throws {
        var monthly = LifecycleSimulator()
        monthly.subscribe()
        let record = try Self.record(monthly)
        #expect(Self.answer([record], at: Self.start + Self.day).entitlements["pro"]?.active == true)
        let refused = Self.answer([record], catalog: Self.catalog(sandboxGrants: false), at: Self.start + Self.day)
        let pro = try #require(refused.entitlements["pro"])
        #expect(!pro.active)
        #expect(pro.environment == "Sandbox")
        #expect(pro.expirationReason == "sandbox_not_granting")
        #expect(refused.subscriptions["com.example.pro.monthly"]?.status == .active, "visible, not granting")
    }

    @Test(arguments: [
        (nil, nil, PeriodType.normal), (1, "FREE_TRIAL", .trial), (1, "PAY_AS_YOU_GO", .intro),
        (2, "PAY_UP_FRONT", .promotional), (3, "FREE_TRIAL", .offerCode), (4, "PAY_AS_YOU_GO", .winBack),
    ] as [(Int32?, String?, PeriodType)])
    func thePeriodTypeComesFromTheOffer(offerType: Int32?, discount: String?, expected: PeriodType) throws {
        var monthly = LifecycleSimulator()
        monthly.subscribe()
        var event = monthly.events[0]
        event.transaction?.rawOfferType = offerType
        event.transaction?.rawOfferDiscountType = discount
        let record = try #require(try EntitlementEngine.apply(event, to: nil).record)
        #expect(Self.answer([record], at: Self.start + Self.day).entitlements["pro"]?.periodType == expected)
    }

    @Test func aGrantThatOutlastsThePurchaseDecides() throws {
        var monthly = LifecycleSimulator()
        monthly.subscribe()
        let record = try Self.record(monthly)
        let grant = EntitlementGrant(grantId: "g1", entitlement: "pro", bundleId: nil, grantedAt: Self.start,
                                     expiresDate: Self.start + 60 * Self.day, reason: "apology", grantedBy: "support")
        let pro = try #require(Self.answer([record], grants: [grant], at: Self.start + Self.day).entitlements["pro"])
        #expect(pro.grantedBy == .grant)
        #expect(pro.grantId == "g1")
        #expect(pro.expiresDate == Self.start + 60 * Self.day)
        // Revoked, the purchase decides again.
        var revoked = grant
        revoked.revokedAt = Self.start + 2 * Self.day
        let after = try #require(Self.answer([record], grants: [revoked], at: Self.start + 3 * Self.day).entitlements["pro"])
        #expect(after.grantedBy == .purchase)
        #expect(after.active)
    }

    @Test func unsubscribeAndBillingIssueAreWhenFirstSeenAndClearWhenFixed() throws {
        var monthly = LifecycleSimulator()
        monthly.subscribe()
        monthly.setAutoRenew(false)
        let offAt = monthly.now
        monthly.setAutoRenew(false, after: Self.day)
        let record = try Self.record(monthly)
        let pro = try #require(Self.answer([record], at: monthly.now).entitlements["pro"])
        #expect(pro.unsubscribeDetectedAt == offAt)
        #expect(!pro.willRenew)
        // Delivered backwards, the same first sighting.
        var backwards: EntitlementRecord?
        for event in monthly.events.reversed() { backwards = try EntitlementEngine.apply(event, to: backwards).record }
        #expect(backwards?.autoRenewOff?.since == offAt)
        monthly.setAutoRenew(true)
        monthly.failBilling(withGrace: true)
        let failedAt = monthly.now
        let billing = try #require(Self.answer([try Self.record(monthly)], at: monthly.now).entitlements["pro"])
        #expect(billing.unsubscribeDetectedAt == nil)
        #expect(billing.billingIssueDetectedAt == failedAt)
        #expect(billing.gracePeriodExpiresDate != nil)
        #expect(billing.active, "in the grace period")
    }

    @Test func willRenewFollowsTheCommitmentNotTheMonth() throws {
        var monthly = LifecycleSimulator()
        monthly.subscribe()
        var event = monthly.events[0]
        event.renewalInfo?.commitmentInfo = RenewalCommitmentInfo(rawCommitmentAutoRenewStatus: 0)
        let record = try #require(try EntitlementEngine.apply(event, to: nil).record)
        #expect(record.renewal?.autoRenewStatus == 1)
        #expect(Self.answer([record], at: Self.start + Self.day).entitlements["pro"]?.willRenew == false)
    }

    @Test func theTimelineHasEveryFactOnceEvenWhenNothingChanged() throws {
        var monthly = LifecycleSimulator()
        monthly.subscribe()
        monthly.renew()
        monthly.setAutoRenew(false)
        var record = try Self.record(monthly)
        #expect(record.history.map(\.type) == ["SUBSCRIBED", "DID_RENEW", "DID_CHANGE_RENEWAL_STATUS"])
        // The same transaction ingested by the backend later changes no fact but is a happening.
        let ingest = AppleFact(.ingest(receivedAt: monthly.now + 5), transaction: monthly.latest, renewalInfo: nil)
        let update = try EntitlementEngine.apply(ingest, to: record)
        #expect(update.outcome == .stale)
        record = try #require(update.record)
        #expect(record.history.count == 4)
        #expect(record.history.contains { $0.source == "ingest" && $0.type == "TRANSACTION" })
        let again = try EntitlementEngine.apply(ingest, to: record)
        #expect(again.outcome == .duplicate)
        #expect(again.record == record)
        let answer = CustomerAnswer(of: .init(userId: nil, records: [record], historyLimit: 2), catalog: Self.catalog(),
                                    now: monthly.now)
        #expect(answer.history.count == 2)
        #expect(answer.history.last?.type == "DID_CHANGE_RENEWAL_STATUS", "oldest first, the newest kept")
        #expect(answer.userId == nil)
    }

    @Test func aSeatOfAGroupPurchaseTakenBackIsNotARefund() throws {
        var monthly = LifecycleSimulator()
        monthly.ownership = "ASSIGNED"
        monthly.subscribe()
        monthly.refund()
        let record = try Self.record(monthly)
        #expect(record.status == .revoked)
        #expect(Self.answer([record], at: monthly.now).entitlements["pro"]?.expirationReason == "revoked")
    }

    @Test func recordsStoredBeforeTheTimelineStillRead() throws {
        var monthly = LifecycleSimulator()
        monthly.subscribe()
        var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(try Self.record(monthly))) as? [String: Any])
        object["history"] = nil
        object["autoRenewOff"] = nil
        object["billingIssue"] = nil
        let old = try JSONDecoder().decode(EntitlementRecord.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(old.history.isEmpty)
        #expect(old.status == .active)
    }

    @Test func theTimelineKeepsTheNewestThousandEntries() throws {
        var monthly = LifecycleSimulator()
        monthly.subscribe()
        var record = try Self.record(monthly)
        let transaction = monthly.latest
        for index in 0..<1_005 {
            let fact = AppleFact(id: "metadata-\(index)", source: .notification, type: "PRICE_INCREASE", signedDate: monthly.now + 1 + Int64(index),
                                 transaction: transaction, renewalInfo: nil)
            record = try #require(try EntitlementEngine.apply(fact, to: record).record)
        }
        #expect(record.history.count == 1_000)
        #expect(record.history.first?.id == "metadata-5", "the oldest went first")
        #expect(record.history.last?.id == "metadata-1004")
    }
}
