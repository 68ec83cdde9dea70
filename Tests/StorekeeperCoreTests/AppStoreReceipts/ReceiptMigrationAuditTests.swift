import Foundation
@testable import StorekeeperCore
import Testing

/// The dual track's comparison and record, and which purchases need an appAccountToken.
@Suite struct ReceiptMigrationAuditTests {
    static func legacy(_ id: String, _ state: LegacySubscriptionStatus.State) -> LegacySubscriptionStatus {
        LegacySubscriptionStatus(originalTransactionId: id, productId: "p", state: state, expiresDate: nil,
                                 gracePeriodExpiresDate: nil, expirationIntent: nil, autoRenew: nil)
    }

    @Test func sameNamesAgreeAndTheNewTracksFinerNamesToo() {
        #expect(ReceiptMigrationAudit.agree(legacy: "active", new: "active"))
        #expect(ReceiptMigrationAudit.agree(legacy: "billing_retry", new: "billing_retry"))
        #expect(ReceiptMigrationAudit.agree(legacy: "active", new: "lifetime"))
        #expect(ReceiptMigrationAudit.agree(legacy: "refunded", new: "revoked"))
        #expect(!ReceiptMigrationAudit.agree(legacy: "expired", new: "active"))
        #expect(!ReceiptMigrationAudit.agree(legacy: "grace", new: "billing_retry"))
        #expect(!ReceiptMigrationAudit.agree(legacy: "active", new: nil), "no entitlement on the new track is a disagreement")
    }

    @Test func oneRecordPerLegacySubscriptionKeptWithoutExpiry() throws {
        let outcome = ReceiptMigrationOutcome(subscriptions: [
            .init(originalTransactionId: "1", status: "active"),
            .init(originalTransactionId: "2", status: "expired"),
            .init(originalTransactionId: "3", status: "lifetime"),
        ])
        let now = Date(timeIntervalSince1970: 1_780_311_600)
        let audits = ReceiptMigrationAudit.compare(legacy: [Self.legacy("2", .expired), Self.legacy("1", .grace)],
                                                   outcome: outcome, environment: "Sandbox", now: now)
        #expect(audits.map(\.originalTransactionId) == ["1", "2"])
        #expect(audits.map(\.agree) == [false, true])
        #expect(audits.first?.newStatus == "active")
        #expect(audits.first?.recordedAt == 1_780_311_600_000)

        let store = MemoryStore()
        for audit in audits { try audit.save(of: TestPKI.bundleId, in: store) }
        #expect(try ReceiptMigrationAudit.load(.testApp("1"), from: store) == audits.first)
        #expect(store.keys.contains("appstore:app:\(TestPKI.bundleId):migration:1"))
    }

    @Test func aTokenIsSetOnlyWherePurchasesCarryNoneAndNeverOnConsumables() {
        func transaction(_ id: String, _ original: String, _ type: String, token: String? = nil) -> JWSTransactionDecodedPayload {
            var transaction = JWSTransactionDecodedPayload(transactionId: id, originalTransactionId: original)
            transaction.rawType = type
            transaction.appAccountToken = token
            return transaction
        }
        let missing = AppStoreReceiptMigrator.originalIdsWithoutToken([
            transaction("1", "1", "Auto-Renewable Subscription"),
            transaction("2", "1", "Auto-Renewable Subscription", token: "5b1a0b44-2f0e-4f53-9d6e-2b8f8f0f3c11"),
            transaction("3", "3", "Non-Consumable"),
            transaction("4", "4", "Consumable"),
            transaction("5", "5", "Auto-Renewable Subscription", token: ""),
        ])
        #expect(missing == ["3", "5"])
    }
}
