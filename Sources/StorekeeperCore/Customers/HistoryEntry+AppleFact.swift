extension HistoryEntry {
    /// The timeline entry of a fact Apple stated about a purchase: named by the fact's id (so
    /// a redelivery adds nothing), dated by Apple's signing time.
    init(_ fact: AppleFact, transaction: TransactionFacts) {
        let (type, source) = Self.kind(of: fact)
        self.init(id: fact.id, date: fact.signedDate, type: type, subtype: fact.subtype,
                  productId: transaction.productId, transactionId: transaction.transactionId, source: source)
    }

    /// The type and the source as the timeline names them: Apple's notificationType for a
    /// notification; for the other paths, what happened and how it reached Storekeeper.
    static func kind(of fact: AppleFact) -> (type: String, source: String) {
        switch fact.source {
        case .notification: (fact.type ?? "UNKNOWN", "notification")
        case .ingest: ("TRANSACTION", "ingest")
        case .reconciliation where fact.id.hasPrefix(AppleFact.migrationIdPrefix): ("MIGRATION", "migration")
        case .reconciliation: ("RECONCILIATION", "reconciliation")
        }
    }
}
