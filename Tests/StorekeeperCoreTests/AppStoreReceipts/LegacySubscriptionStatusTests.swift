import Foundation
import Testing
import StorekeeperCore

@Suite("Legacy status inference from verifyReceipt")
struct LegacySubscriptionStatusTests {
    static let now = Date(timeIntervalSince1970: 1_780_272_000)  // 2026-06-01
    static let hour: Int64 = 3_600_000
    static let nowMs: Int64 = 1_780_272_000_000

    static func response(_ latest: [[String: String]], _ renewals: [[String: String]] = [], status: Int = 0) throws -> VerifyReceiptResponse {
        let body: [String: Any] = ["status": status, "environment": "Sandbox",
                                   "latest_receipt_info": latest, "pending_renewal_info": renewals]
        return try JSONDecoder().decode(VerifyReceiptResponse.self, from: JSONSerialization.data(withJSONObject: body))
    }

    static func transaction(_ original: String, expires: Int64?, purchased: Int64 = nowMs - 720 * hour,
                            cancelled: Int64? = nil, id: String? = nil) -> [String: String] {
        var fields = ["original_transaction_id": original, "transaction_id": id ?? original,
                      "product_id": "com.example.pro.monthly", "purchase_date_ms": String(purchased)]
        if let expires { fields["expires_date_ms"] = String(expires) }
        if let cancelled { fields["cancellation_date_ms"] = String(cancelled) }
        return fields
    }

    func state(_ latest: [[String: String]], _ renewals: [[String: String]] = []) throws -> LegacySubscriptionStatus.State? {
        try LegacySubscriptionStatus.infer(from: Self.response(latest, renewals), now: Self.now).first?.state
    }

    @Test func activeWhileTheLatestPeriodRuns() throws {
        #expect(try state([Self.transaction("1", expires: Self.nowMs + Self.hour)]) == .active)
    }

    @Test func theLatestTransactionDecidesNotTheFirst() throws {
        let old = Self.transaction("1", expires: Self.nowMs - 700 * Self.hour, id: "a")
        let renewed = Self.transaction("1", expires: Self.nowMs + 24 * Self.hour, purchased: Self.nowMs - 5 * Self.hour, id: "b")
        let statuses = LegacySubscriptionStatus.infer(from: try Self.response([renewed, old]), now: Self.now)
        #expect(statuses.count == 1)
        #expect(statuses.first?.state == .active)
        #expect(statuses.first?.expiresDate == Self.nowMs + 24 * Self.hour)
    }

    @Test func graceWhileBillingRetriesInsideTheGracePeriod() throws {
        let renewal = ["original_transaction_id": "1", "is_in_billing_retry_period": "1", "expiration_intent": "2",
                       "grace_period_expires_date_ms": String(Self.nowMs + 48 * Self.hour), "auto_renew_status": "1"]
        let statuses = LegacySubscriptionStatus.infer(
            from: try Self.response([Self.transaction("1", expires: Self.nowMs - Self.hour)], [renewal]), now: Self.now)
        #expect(statuses.first?.state == .grace)
        #expect(statuses.first?.gracePeriodExpiresDate == Self.nowMs + 48 * Self.hour)
        #expect(statuses.first?.expirationIntent == 2)
        #expect(statuses.first?.autoRenew == true)
    }

    @Test func billingRetryOnceTheGracePeriodIsOver() throws {
        let renewal = ["original_transaction_id": "1", "is_in_billing_retry_period": "1",
                       "grace_period_expires_date_ms": String(Self.nowMs - Self.hour)]
        #expect(try state([Self.transaction("1", expires: Self.nowMs - 2 * Self.hour)], [renewal]) == .billingRetry)
    }

    @Test func expiredWhenNotRetrying() throws {
        let renewal = ["original_transaction_id": "1", "is_in_billing_retry_period": "0", "expiration_intent": "1", "auto_renew_status": "0"]
        let status = LegacySubscriptionStatus.infer(
            from: try Self.response([Self.transaction("1", expires: Self.nowMs - Self.hour)], [renewal]), now: Self.now).first
        #expect(status?.state == .expired)
        #expect(status?.expirationIntent == 1)
        #expect(status?.autoRenew == false)
    }

    @Test func refundedWhenTheLatestWasCancelled() throws {
        #expect(try state([Self.transaction("1", expires: Self.nowMs + Self.hour, cancelled: Self.nowMs - Self.hour)]) == .refunded)
    }

    @Test func aPurchaseWithoutExpiryIsActive() throws {
        #expect(try state([Self.transaction("1", expires: nil)]) == .active)
    }

    @Test func oneStatusPerOriginalTransactionSorted() throws {
        let statuses = LegacySubscriptionStatus.infer(from: try Self.response([
            Self.transaction("2", expires: Self.nowMs - Self.hour), Self.transaction("1", expires: Self.nowMs + Self.hour),
        ]), now: Self.now)
        #expect(statuses.map(\.originalTransactionId) == ["1", "2"])
        #expect(statuses.map(\.state) == [.active, .expired])
    }

    @Test func statusNames() {
        #expect(VerifyReceiptStatus(rawValue: 21007).name == "sandboxReceiptSentToProduction")
        #expect(VerifyReceiptStatus(rawValue: 21150).name == "internalDataAccessError")
        #expect(VerifyReceiptStatus(rawValue: 21150).isTemporary)
        #expect(!VerifyReceiptStatus.receiptCouldNotBeAuthenticated.isTemporary)
        #expect(VerifyReceiptStatus.subscriptionExpired.carriesReceipt)
        #expect(VerifyReceiptStatus(rawValue: 4242).name == "unknown")
    }
}
