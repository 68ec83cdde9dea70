extension DataExport {
    func transactions(_ request: Request, cursor: ExportCursor?, bounds: LogBounds, version: Int64?) throws -> Outcome {
        let fresh = ExportCursor(of: .transactions, sequence: bounds.last, full: nil, updatedAt: now)
        guard let cursor, !request.full else {
            return try walk(request, from: nil, sequence: bounds.last, start: fresh, version: version)
        }
        if let full = cursor.full {
            return try walk(request, from: ExportPosition(key: full.after), sequence: full.sequence, start: cursor, version: version)
        }
        if Self.trimmed(after: cursor.sequence, bounds) {
            var outcome = try walk(request, from: nil, sequence: bounds.last, start: fresh, version: version)
            outcome.fellBackToFull = true
            outcome.from = cursor.sequence
            return outcome
        }
        return try changes(request, after: cursor, bounds: bounds, version: version)
    }

    /// Every subscription and consumable purchase after `position`, until the limit.
    private func walk(_ request: Request, from position: ExportPosition?, sequence: Int64, start: ExportCursor,
                      version: Int64?) throws -> Outcome {
        let repository = EntitlementRepository(store: store)
        let everything = try repository.allSubscriptions().map { ExportPosition(.subscription, $0) }
            + repository.allConsumablePurchases().map { ExportPosition(.consumable, $0) }
        var outcome = Outcome(of: .transactions, table: request.table, mode: "full", from: position == nil ? 0 : start.sequence, to: sequence,
                              next: ExportCursor(of: .transactions, sequence: sequence, full: nil, updatedAt: now),
                              expectedVersion: version)
        var collected = RowCollector(table: request.table)
        for item in everything where position.map({ item > $0 }) ?? true {
            if collected.count >= request.limit {
                outcome.complete = false
                break
            }
            try collected.add(rows(of: item, repository: repository, userHint: nil))
            outcome.next.full = ExportCursor.FullWalk(sequence: sequence, after: item.key)
        }
        if outcome.complete { outcome.next.full = nil }
        outcome.table = collected.table
        return outcome
    }

    /// The transactions named by the events after the cursor, as they stand now.
    private func changes(_ request: Request, after cursor: ExportCursor, bounds: LogBounds, version: Int64?) throws -> Outcome {
        let repository = EntitlementRepository(store: store)
        let log = EventLog(store: store)
        var outcome = Outcome(of: .transactions, table: request.table, mode: "incremental", from: cursor.sequence, to: cursor.sequence,
                              next: ExportCursor(of: .transactions, sequence: cursor.sequence, full: nil, updatedAt: now),
                              expectedVersion: version)
        var collected = RowCollector(table: request.table)
        reading: while outcome.to < bounds.last {
            let events = try log.events(after: outcome.to, limit: Self.page)
            if events.isEmpty { break }
            for event in events {
                if collected.count >= request.limit {
                    outcome.complete = false
                    break reading
                }
                outcome.eventsRead += 1
                try collected.add(rows(named: event, repository: repository))
                outcome.to = event.sequence
            }
        }
        outcome.next.sequence = outcome.to
        outcome.table = collected.table
        return outcome
    }

    /// What an event names: the transaction it is about, or every transaction of the
    /// purchase when it has no transaction id or changed the purchase's owner (TRANSFER).
    private func rows(named event: Event, repository: EntitlementRepository) throws -> [TransactionExportRow] {
        guard let app = event.app else { return [] }
        if let original = event.originalTransactionId,
           let record = try repository.record(SubscriptionRef(bundleId: app, originalTransactionId: original)) {
            let owner = try repository.owner(of: SubscriptionRef(bundleId: app, originalTransactionId: original))
            let every = event.transactionId == nil || event.type == EventType.transfer.rawValue
            let named = every ? Array(record.transactions.values) : [event.transactionId.flatMap { record.transactions[$0] }].compactMap { $0 }
            return named.sorted { $1.isLaterPeriod(than: $0) }.map { TransactionExportRow(facts: $0, app: app, userId: owner) }
        }
        guard let transactionId = event.transactionId else { return [] }
        return try rows(of: ExportPosition(.consumable, SubscriptionRef(bundleId: app, originalTransactionId: transactionId)),
                        repository: repository, userHint: event.userId)
    }

    /// A subscription's transactions, oldest period first, or a consumable purchase.
    private func rows(of item: ExportPosition, repository: EntitlementRepository, userHint: String?) throws -> [TransactionExportRow] {
        let app = item.reference.bundleId
        switch item.section {
        case .subscription:
            guard let record = try repository.record(item.reference) else { return [] }
            let owner = try repository.owner(of: item.reference)
            return record.transactions.values.sorted { $1.isLaterPeriod(than: $0) }
                .map { TransactionExportRow(facts: $0, app: app, userId: owner) }
        case .consumable:
            guard let record = try store.get(StoreKeys.purchase(item.reference), as: PurchaseRecord.self) else { return [] }
            // A consumable has no owner key: whose its events are, else the user its
            // appAccountToken was handed to, else the one the event names.
            var owner = record.customerId.flatMap(Event.userId(of:))
            if owner == nil, let token = record.facts.appAccountToken, !token.isEmpty { owner = try repository.user(ofAppAccountToken: token) }
            return [TransactionExportRow(facts: record.facts, app: app, userId: owner ?? userHint)]
        }
    }
}

/// Rows once each (by app and transaction id): several events of one run may name the same
/// transaction, whose latest facts are what is written.
private struct RowCollector {
    private var seen: Set<String> = []
    private(set) var table: ExportTable
    var count: Int { table.rowCount }

    init(table: ExportTable) {
        self.table = table
    }

    mutating func add(_ rows: [TransactionExportRow]) {
        for row in rows where seen.insert(row.app + "/" + row.facts.transactionId).inserted {
            table.append(row.cells)
        }
    }
}
