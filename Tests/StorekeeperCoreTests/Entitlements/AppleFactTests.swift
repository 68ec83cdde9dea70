import FoundationEssentials
import StorekeeperCore
import Testing

/// One builder names and dates every fact. The ids are part of the stored contract: a fact
/// applied again (a rerun, a retried job) must carry the same id to be seen as a duplicate.
@Suite("Entitlements: one builder for what Apple said")
struct AppleFactTests {
    static let transaction = JWSTransactionDecodedPayload(
        transactionId: "t-2", originalTransactionId: "t-1", signedDate: 1_700_000_000_000)
    static let renewal = JWSRenewalInfoDecodedPayload(originalTransactionId: "t-1", signedDate: 1_700_000_900_000)

    @Test func aNotificationIsNamedByItsUUIDAndDatedWhenSigned() {
        let fact = AppleFact(.notification(notificationUUID: "u-1", signedDate: 5, type: "REFUND", subtype: nil),
                             transaction: Self.transaction, renewalInfo: nil)
        #expect(fact.id == "u-1")
        #expect(fact.source == .notification)
        #expect(fact.signedDate == 5)
        #expect(fact.notificationType == .refund)
        #expect(fact.originalTransactionId == "t-1")
    }

    @Test func anIngestedTransactionIsDatedByItsSignatureOrByWhenItCame() {
        let signed = AppleFact(.ingest(receivedAt: 9), transaction: Self.transaction, renewalInfo: Self.renewal)
        #expect(signed.id == "ingest:t-2:1700000000000")
        #expect(signed.source == .ingest)
        #expect(signed.signedDate == 1_700_000_000_000)
        var undated = Self.transaction
        undated.signedDate = nil
        let received = AppleFact(.ingest(receivedAt: 9), transaction: undated, renewalInfo: nil)
        #expect(received.id == "ingest:t-2:9")
        #expect(received.signedDate == 9)
        #expect(received.type == nil)
    }

    @Test func apiAnswersAreDatedByTheNewestSignatureInThem() {
        let reconciled = AppleFact(.reconciliation(originalTransactionId: "t-1"), transaction: Self.transaction, renewalInfo: Self.renewal)
        #expect(reconciled.id == "reconcile:t-1:1700000900000")
        #expect(reconciled.source == .reconciliation)
        #expect(reconciled.signedDate == 1_700_000_900_000)
        let migrated = AppleFact(.migration(step: "history", originalTransactionId: "t-1"), transaction: Self.transaction, renewalInfo: nil)
        #expect(migrated.id == "migrate:history:t-2:1700000000000")
        // Stored as reconciliation, as migrations always were.
        #expect(migrated.source == .reconciliation)
        var anonymous = Self.transaction
        anonymous.transactionId = nil
        #expect(AppleFact(.migration(step: "status", originalTransactionId: "t-1"), transaction: anonymous, renewalInfo: nil).id
                == "migrate:status:t-1:1700000000000")
    }

    /// `lastEvent` keeps the stored spelling of the source; import-customers' facts added one.
    @Test func theSourceIsStoredAsBefore() throws {
        #expect(AppleFact.Source.allCases.map(\.rawValue) == ["notification", "ingest", "reconciliation", "import"])
    }

    @Test func anImportIsNamedLikeAMigrationAndStoredAsAnImport() {
        let imported = AppleFact(.import(step: "history", originalTransactionId: "t-1"), transaction: Self.transaction, renewalInfo: nil)
        #expect(imported.id == "import:history:t-2:1700000000000")
        #expect(imported.source == .import)
        #expect(imported.signedDate == 1_700_000_000_000)
    }
}
