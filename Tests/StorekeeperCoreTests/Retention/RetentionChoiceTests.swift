import Foundation
import StorekeeperCore
import Testing

/// Rule choice for Apple's realtime retention requests: each kind of rule and answer, and
/// every way the rules cannot be evaluated answering the default message.
@Suite("Retention rules: the first rule that holds answers, anything unknown answers the default")
struct RetentionChoiceTests {
    static let day: Int64 = 86_400_000
    static let now = TestPKI.fixedTimeMilliseconds
    static let defaultMessage = "0a6f3d52-7c1e-4b8a-9e2d-000000000000"

    static let retention = CatalogRetention(defaultMessageIdentifier: defaultMessage, rules: [
        .init(name: "yearly-first-year", products: ["yearly"], history: .init(subscribedDaysAtMost: 364, offerRedeemed: false),
              answer: .promotionalOffer(messageIdentifier: "m-offer", offerId: "stay50", signature: .v2)),
        .init(name: "yearly-loyal", products: ["yearly"], history: .init(subscribedDaysAtLeast: 365),
              answer: .message(messageIdentifier: "m-thanks")),
        .init(name: "monthly-french", products: ["monthly"], locales: ["fr"],
              answer: .promotionalOffer(messageIdentifier: "m-fr", offerId: "reste", signature: .v1)),
        .init(name: "monthly-to-yearly", products: ["monthly"],
              answer: .alternateProduct(messageIdentifier: "m-switch", productId: "yearly")),
    ])

    static func request(_ product: String, locale: String = "en-US") -> DecodedRealtimeRequestBody {
        DecodedRealtimeRequestBody(originalTransactionId: "2000000001", appAppleId: TestPKI.appAppleId, productId: product,
                                   userLocale: locale, requestIdentifier: "3f1c2b7a-9d4e-4f60-8a1b-5c6d7e8f9a01",
                                   signedDate: now, rawEnvironment: "Sandbox")
    }

    /// A subscription bought `daysAgo` days before the request, optionally with an offer.
    static func history(daysAgo: Int64, offerType: Int32? = nil) throws -> RetentionHistory {
        let start = now - daysAgo * day
        let transaction = JWSTransactionDecodedPayload(
            transactionId: "2000000009", originalTransactionId: "2000000001", bundleId: TestPKI.bundleId, productId: "yearly",
            purchaseDate: now - day, originalPurchaseDate: start, expiresDate: now + 300 * day,
            rawType: "Auto-Renewable Subscription", signedDate: now - day, rawOfferType: offerType)
        let fact = AppleFact(id: "t", source: .ingest, signedDate: now - day, transaction: transaction, renewalInfo: nil)
        let record = try #require(try EntitlementEngine.apply(fact, to: nil).record)
        return RetentionHistory(record: record)
    }

    private func decide(_ request: DecodedRealtimeRequestBody, _ lookup: RetentionHistory.Lookup,
                        overBudget: Bool = false, reads: inout Int) -> RetentionChoice.Decision {
        RetentionChoice(retention: Self.retention).decide(request, history: {
            reads += 1
            return lookup
        }, overBudget: { overBudget })
    }

    @Test func aYearlySubscriberInTheFirstYearIsOfferedThePromotion() throws {
        var reads = 0
        let decision = decide(Self.request("yearly"), .found(try Self.history(daysAgo: 200)), reads: &reads)
        #expect(decision.rule == "yearly-first-year")
        #expect(decision.answer == .promotionalOffer(messageIdentifier: "m-offer", offerId: "stay50", signature: .v2))
        #expect(decision.fallback == nil)
        #expect(reads == 1)
    }

    @Test func aYearlySubscriberPastTheFirstYearGetsTheNextRule() throws {
        var reads = 0
        let decision = decide(Self.request("yearly"), .found(try Self.history(daysAgo: 400)), reads: &reads)
        #expect(decision.rule == "yearly-loyal")
        #expect(decision.answer == .message(messageIdentifier: "m-thanks"))
        #expect(reads == 1, "the history is read once for every rule")
    }

    @Test func anOfferAlreadyRedeemedIsNotOfferedAgain() throws {
        var reads = 0
        // Day 200, a promotional offer (2) redeemed: neither yearly rule holds.
        let decision = decide(Self.request("yearly"), .found(try Self.history(daysAgo: 200, offerType: 2)), reads: &reads)
        #expect(decision.rule == nil)
        #expect(decision.fallback == .noRuleMatched)
        #expect(decision.answer == .message(messageIdentifier: Self.defaultMessage))
    }

    @Test func productAndLocaleRulesNeverReadTheStore() {
        var reads = 0
        let switchPlan = decide(Self.request("monthly"), .storeFailed("down"), reads: &reads)
        #expect(switchPlan.answer == .alternateProduct(messageIdentifier: "m-switch", productId: "yearly"))
        let french = decide(Self.request("monthly", locale: "fr_CA"), .storeFailed("down"), reads: &reads)
        #expect(french.rule == "monthly-french")
        #expect(french.answer == .promotionalOffer(messageIdentifier: "m-fr", offerId: "reste", signature: .v1))
        #expect(reads == 0)
    }

    @Test func aProductNoRuleNamesAnswersTheDefault() {
        var reads = 0
        let decision = decide(Self.request("weekly"), .notFound, reads: &reads)
        #expect(decision.fallback == .noRuleMatched)
        #expect(decision.answer == .message(messageIdentifier: Self.defaultMessage))
    }

    @Test func aSubscriptionWithoutARecordIsUnevaluableNotSkipped() {
        var reads = 0
        // yearly-loyal must not answer for a customer nobody knows the age of.
        let decision = decide(Self.request("yearly"), .notFound, reads: &reads)
        #expect(decision.fallback == .ruleUnevaluable)
        #expect(decision.rule == nil)
        #expect(decision.answer == .message(messageIdentifier: Self.defaultMessage))
    }

    @Test func aRecordWithoutAPurchaseDateIsUnevaluable() {
        var reads = 0
        let decision = decide(Self.request("yearly"), .found(RetentionHistory(startedAt: nil, offerRedeemed: false)), reads: &reads)
        #expect(decision.fallback == .ruleUnevaluable)
        #expect(decision.detail?.contains("yearly-first-year") == true)
    }

    @Test func aStoreFailureAnswersTheDefault() {
        var reads = 0
        let decision = decide(Self.request("yearly"), .storeFailed("store_unavailable"), reads: &reads)
        #expect(decision.fallback == .storeUnavailable)
        #expect(decision.answer == .message(messageIdentifier: Self.defaultMessage))
    }

    @Test func aSpentBudgetAnswersTheDefaultWithoutReadingTheStore() throws {
        var reads = 0
        let decision = decide(Self.request("yearly"), .found(try Self.history(daysAgo: 10)), overBudget: true, reads: &reads)
        #expect(decision.fallback == .timeBudgetExceeded)
        #expect(decision.answer == .message(messageIdentifier: Self.defaultMessage))
        #expect(reads == 0)
    }

    @Test func historyCountsWholeDaysFromTheFirstPurchase() throws {
        let history = try Self.history(daysAgo: 365)
        #expect(history.subscribedDays(at: Self.now) == 365)
        #expect(history.subscribedDays(at: Self.now - 1) == 364)
        #expect(try Self.history(daysAgo: 1, offerType: 4).offerRedeemed, "a win-back offer counts")
        #expect(try !Self.history(daysAgo: 1, offerType: 1).offerRedeemed, "an introductory offer does not")
    }
}
