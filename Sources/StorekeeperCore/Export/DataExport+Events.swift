extension DataExport {
    /// The events after the cursor (every event the log keeps without one), oldest first.
    func events(_ request: Request, cursor: ExportCursor?, bounds: LogBounds, version: Int64?) throws -> Outcome {
        var start = cursor?.sequence ?? 0
        var outcome = Outcome(of: .events, table: request.table, mode: cursor == nil ? "full" : "incremental", from: start, to: start,
                              next: ExportCursor(of: .events, sequence: start, full: nil, updatedAt: now), expectedVersion: version)
        if cursor != nil, Self.trimmed(after: start, bounds) {
            // What was trimmed is gone: from the oldest event kept, and say how many were lost.
            let oldest = bounds.first ?? bounds.last + 1
            outcome.fellBackToFull = true
            outcome.eventsTrimmed = start > bounds.last ? 0 : oldest - start - 1
            start = 0
            outcome.to = 0
        }
        let log = EventLog(store: store)
        while outcome.rows < request.limit, outcome.to < bounds.last {
            let page = try log.events(after: outcome.to, limit: min(Self.page, request.limit - outcome.rows))
            guard let last = page.last else { break }
            for event in page {
                switch request.format {
                case .csv: outcome.table.append(EventExportRow.cells(event))
                case .ndjson: outcome.table.appendLine(try event.encoded())
                }
            }
            outcome.to = last.sequence
        }
        outcome.eventsRead = outcome.rows
        outcome.complete = outcome.to >= bounds.last
        outcome.next.sequence = outcome.to
        return outcome
    }
}
