@testable import StorekeeperCore
import Testing

@Suite("Customer import: a line's verdict from what the migration did")
struct CustomerImportVerdictTests {
    static let line = CustomerImportLine(source: .customers, line: 3, userId: "u-1", originalTransactionId: "2000000001")

    static func outcome(_ own: ReceiptMigrationOutcome.Subscription, others: [ReceiptMigrationOutcome.Subscription] = []) -> ReceiptMigrationOutcome {
        ReceiptMigrationOutcome(subscriptions: [own] + others, appleRequests: 2)
    }

    static func own(status: String? = "active", linked: Bool? = true, failure: String? = nil, added: Int = 1) -> ReceiptMigrationOutcome.Subscription {
        ReceiptMigrationOutcome.Subscription(originalTransactionId: "2000000001", productId: "p", status: status,
                                             transactionsAdded: added, linkedToUser: linked, failure: failure)
    }

    @Test func eachVerdict() {
        let other = ReceiptMigrationOutcome.Subscription(originalTransactionId: "2000000009", status: "expired", transactionsAdded: 2,
                                                         linkedToUser: true)
        let linked = CustomerImport.judge(Self.line, Self.outcome(Self.own(), others: [other]), wasLinked: false)
        #expect(linked.result == .linked)
        #expect(linked.transactionsBackfilled == 3, "the customer's other purchase counts too")
        #expect(linked.subscriptions.map(\.originalTransactionId) == ["2000000001", "2000000009"])
        #expect(linked.alreadyLinked == false)
        #expect(linked.line == 3 && linked.source == .customers)

        #expect(CustomerImport.judge(Self.line, Self.outcome(Self.own(linked: false)), wasLinked: false).result == .alreadyLinkedToAnotherUser)
        #expect(CustomerImport.judge(Self.line, Self.outcome(Self.own(status: nil, linked: nil, failure: "not_found", added: 0)),
                                     wasLinked: false).result == .notFound)
        let rejected = CustomerImport.judge(Self.line, Self.outcome(Self.own(failure: "VERIFICATION_FAILURE")), wasLinked: false)
        #expect(rejected.result == .rejected)
        #expect(rejected.code == "VERIFICATION_FAILURE")
        // Apple answered, but nothing Storekeeper keeps came of it (a consumable).
        #expect(CustomerImport.judge(Self.line, Self.outcome(Self.own(status: nil, linked: nil, added: 0)), wasLinked: false).result == .notFound)
    }
}
